import { Rpc } from '@dzpay/contracts';
import { requestRpc, type NatsConnection } from '@dzpay/platform';
import type { FastifyInstance } from 'fastify';
import type { KeyOwnerLookup } from '../../adapters/key-owner-cache.ts';
import { parseEmailReceipt } from '../../domain/payment-request.ts';
import { authOf, requireApiKey } from '../shared/authenticate.ts';
import { ValidationFailure } from '../shared/errors.ts';

export interface ReceiptRoutesDeps {
  keys: KeyOwnerLookup;
  nats: NatsConnection;
  natsPrefix: string;
  receiptsTimeoutMs: number;
}

/**
 * POST /api/v1/payments/{id}/receipt/email: receipts checks the payment, counts the
 * merchant's hourly emails and sends. The answer is HTTP 200 (ARCHITECTURE §6: the
 * spec's body says 200).
 */
export function receiptRoutes(app: FastifyInstance, deps: ReceiptRoutesDeps): void {
  app.post<{ Params: { id: string } }>(
    '/api/v1/payments/:id/receipt/email',
    { preParsing: requireApiKey(app, deps.keys) },
    async (request) => {
      const { scope, merchant, keyId } = authOf(request);
      const parsed = parseEmailReceipt(request.body);
      if (!parsed.ok) throw ValidationFailure.of(parsed.error);
      const data = await requestRpc(
        deps.nats,
        deps.natsPrefix,
        Rpc.receiptEmailSend,
        {
          merchant: {
            ...scope,
            name: merchant.name,
            emailsPerHour: merchant.receiptEmailsPerHour,
            keyId,
          },
          paymentId: request.params.id,
          email: parsed.value.email,
          ...(parsed.value.language ? { language: parsed.value.language } : {}),
        },
        { timeoutMs: deps.receiptsTimeoutMs },
      );
      return { statusCode: 200, message: 'Receipt email sent', data };
    },
  );
}
