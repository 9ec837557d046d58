import { randomUUID } from 'node:crypto';
import {
  isUuid,
  PAYMENT_WINDOW_MS,
  Rpc,
  RpcFailure,
  type MerchantTerms,
  type PaymentsRegisterReply,
  type PaymentsRegisterRequest,
  type RegisterPaymentBody,
} from '@dzpay/contracts';
import {
  AppError,
  serveRpc,
  type Logger,
  type NatsConnection,
  type RpcServer,
} from '@dzpay/platform';
import { CardNetworkError, type CardNetwork } from '../adapters/cardnet/card-network.ts';
import type { PaymentsRepository } from '../adapters/payments-repository.ts';
import { chargeFor, refusalOf } from '../domain/charge.ts';
import { paymentView } from '../domain/payment-record.ts';
import { newCheckoutToken } from '../domain/tokens.ts';

export interface PaymentsHandlersDeps {
  nats: NatsConnection;
  prefix: string;
  repository: PaymentsRepository;
  cardNetworks: Record<'test' | 'live', CardNetwork>;
  logger: Logger;
  /** Base URL of the gateway's pages: the card network sends payers back there. */
  publicBaseUrl: string;
  windowMs?: number;
  clock?: () => Date;
}

/** Codes whose answer is worth replaying for the same Idempotency-Key: not "retry later". */
const TRANSIENT = new Set(['SERVICE503_UNAVAILABLE', 'INTERNAL500_ERROR']);

/** payments.register, payments.get and payments.refund (the merchant API's operations). */
export function servePaymentsHandlers(deps: PaymentsHandlersDeps): Promise<RpcServer[]> {
  const { nats, prefix, repository, logger } = deps;
  const clock = deps.clock ?? (() => new Date());
  const windowMs = deps.windowMs ?? PAYMENT_WINDOW_MS;

  async function registerOnce(
    terms: MerchantTerms,
    body: RegisterPaymentBody,
  ): Promise<PaymentsRegisterReply> {
    const refusal = refusalOf(body, terms);
    if (refusal)
      throw new AppError(
        refusal.code,
        refusal.message,
        refusal.details ? { details: refusal.details } : {},
      );

    const charge = chargeFor(body.amount, terms.feeDzd);
    const { token, hash } = newCheckoutToken();
    const id = randomUUID();
    const record = await repository.insert({
      id,
      merchantId: terms.merchantId,
      mode: terms.mode,
      channel: 'CHECKOUT',
      reference: body.reference,
      merchantName: terms.name,
      amount: charge.amount,
      fee: charge.fees,
      total: charge.total,
      currency: 'DZD',
      language: body.language ?? 'fr',
      status: 'pending',
      successUrl: body.successUrl ?? null,
      failureUrl: body.failureUrl ?? null,
      metadata: body.metadata ?? null,
      checkoutTokenHash: hash,
      expiresAt: new Date(clock().getTime() + windowMs),
    });
    if (!record) {
      throw new AppError('PAYMENT_INSTANCE409_DUPLICATE_REFERENCE', 'reference already used', {
        details: { reference: body.reference },
      });
    }

    const returnUrl = new URL(`/checkout/return/${id}`, deps.publicBaseUrl).href;
    try {
      const order = await deps.cardNetworks[terms.mode].register({
        orderNumber: record.orderNumber,
        amount: record.total,
        returnUrl,
        failUrl: returnUrl,
        language: record.language,
        description: `${terms.name} ${body.reference}`.slice(0, 99),
        sessionTimeoutSecs: Math.max(600, Math.ceil(windowMs / 1000)),
        udf1: id,
      });
      const registered = await repository.annotate(id, {
        cardnetOrderId: order.orderId,
        cardnetFormUrl: order.formUrl,
      });
      return { payment: paymentView(registered), checkoutToken: token, replayed: false };
    } catch (error) {
      if (!(error instanceof CardNetworkError)) throw error;
      logger.warn({ err: error, paymentId: id }, 'card network registration failed');
      // The reference is used up: the merchant retries with a new one (spec).
      await repository.transition(
        id,
        ['pending'],
        { status: 'failed', failureReason: 'card network unavailable at registration' },
        'payment.failed',
      );
      throw new AppError(
        'CARDNET502_REGISTRATION_FAILED',
        'card network unavailable; retry with a new reference',
        {
          details: { reference: body.reference },
        },
      );
    }
  }

  async function register({
    merchant,
    payment,
    idempotency,
  }: PaymentsRegisterRequest): Promise<PaymentsRegisterReply> {
    if (!idempotency) return registerOnce(merchant, payment);
    const scope = { merchantId: merchant.merchantId, mode: merchant.mode };
    const claim = await repository.claimIdempotencyKey(
      scope,
      idempotency.key,
      idempotency.fingerprint,
    );
    if (claim.kind === 'mismatch') {
      throw new AppError(
        'IDEMPOTENCY409_KEY_REUSED',
        'this Idempotency-Key was used with another request body',
      );
    }
    if (claim.kind === 'in-progress') {
      throw new AppError(
        'IDEMPOTENCY409_KEY_REUSED',
        'a request with this Idempotency-Key is still running; retry shortly',
      );
    }
    if (claim.kind === 'replay') return replay(claim.response);

    try {
      const reply = await registerOnce(merchant, payment);
      await repository.storeIdempotentResponse(scope, idempotency.key, { ok: true, value: reply });
      return reply;
    } catch (error) {
      if (error instanceof AppError && !TRANSIENT.has(error.code)) {
        const { code, message, details } = error;
        await repository.storeIdempotentResponse(scope, idempotency.key, {
          ok: false,
          error: { code, message, details },
        });
      } else {
        await repository.releaseIdempotencyKey(scope, idempotency.key);
      }
      throw error;
    }
  }

  return Promise.all([
    serveRpc(nats, prefix, Rpc.paymentsRegister, register, logger),

    serveRpc(
      nats,
      prefix,
      Rpc.paymentsGet,
      async ({ merchantId, mode, id }) => {
        const record = isUuid(id)
          ? await repository.findForMerchant({ merchantId, mode }, id)
          : null;
        if (!record) throw notFound(id);
        return paymentView(record);
      },
      logger,
    ),

    serveRpc(
      nats,
      prefix,
      Rpc.paymentsRefund,
      ({ merchantId, mode, id, amount }) =>
        repository.withLockedPayment(
          { merchantId, mode },
          isUuid(id) ? id : null,
          async (record, save) => {
            if (!record) throw notFound(id);
            if (record.status !== 'success' || !record.cardnetOrderId) {
              throw new AppError(
                'PAYMENT_INSTANCE409_NOT_REFUNDABLE',
                'only a successful payment can be refunded',
                {
                  details: { status: paymentView(record).status },
                },
              );
            }
            const remaining = record.total - record.refundedAmount;
            const refund = amount ?? remaining;
            if (refund > remaining) {
              throw new AppError(
                'VALIDATION400_BAD_REQUEST',
                'amount exceeds what is left to refund',
                {
                  details: {
                    failures: [{ field: 'amount', message: `amount must be at most ${remaining}` }],
                  },
                },
              );
            }
            await refundAtCardNetwork(
              deps.cardNetworks[mode],
              record.cardnetOrderId,
              record.refundedAmount,
              refund,
            );
            const refundedAmount = record.refundedAmount + refund;
            const full = refundedAmount === record.total;
            return paymentView(
              await save(
                { refundedAmount, ...(full ? { status: 'refunded' as const } : {}) },
                full ? 'payment.refunded' : null,
              ),
            );
          },
        ),
      logger,
    ),
  ]);
}

/**
 * Asks for a refund once. A refund is never retried blindly (it could pay back twice):
 * when the answer is lost, the order's refunded amount says whether it happened.
 */
async function refundAtCardNetwork(
  network: CardNetwork,
  orderId: string,
  alreadyRefunded: number,
  amount: number,
) {
  try {
    await network.refund(orderId, amount);
  } catch (error) {
    if (!(error instanceof CardNetworkError)) throw error;
    if (error.kind !== 'rejected') {
      const order = await network.status(orderId).catch(() => null);
      if (order && order.refundedAmount >= alreadyRefunded + amount) return;
    }
    throw new AppError(
      'SERVICE503_UNAVAILABLE',
      'the card network did not take the refund; retry later',
      {
        details: {
          reason: 'card network',
          ...(error.errorCode ? { cardNetworkCode: error.errorCode } : {}),
        },
        cause: error,
      },
    );
  }
}

function notFound(id: string): AppError {
  return new AppError('PAYMENT_INSTANCE404_NOT_FOUND', 'payment not found', { details: { id } });
}

function replay(stored: unknown): PaymentsRegisterReply {
  const answer = stored as { ok: boolean; value?: PaymentsRegisterReply; error?: unknown };
  if (answer.ok && answer.value) return { ...answer.value, replayed: true };
  const { code, message, details } = RpcFailure.parse(answer.error);
  throw new AppError(code, message, details ? { details } : {});
}
