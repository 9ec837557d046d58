import { randomUUID } from 'node:crypto';
import {
  isUuid,
  PAYMENT_WINDOW_MS,
  PaymentsRegisterReply,
  PaymentView,
  Rpc,
  type MerchantTerms,
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
import { idempotent } from './idempotency.ts';
import { refunder } from './refund.ts';

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
        // The card form closes with our window (SATIM accepts 600 s at the least).
        sessionTimeoutSecs: Math.max(
          600,
          Math.floor((record.expiresAt.getTime() - clock().getTime()) / 1000),
        ),
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

  async function register({ merchant, payment, idempotency }: PaymentsRegisterRequest) {
    const scope = { merchantId: merchant.merchantId, mode: merchant.mode };
    const { value, replayed } = await idempotent(
      repository,
      scope,
      idempotency,
      PaymentsRegisterReply,
      () => registerOnce(merchant, payment),
    );
    return { ...value, replayed };
  }

  const refund = refunder(deps);

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
      async ({ idempotency, ...request }) =>
        (await idempotent(repository, request, idempotency, PaymentView, () => refund(request)))
          .value,
      logger,
    ),
  ]);
}

function notFound(id: string): AppError {
  return new AppError('PAYMENT_INSTANCE404_NOT_FOUND', 'payment not found', { details: { id } });
}
