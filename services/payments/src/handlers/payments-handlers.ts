import {
  isUuid,
  PAYMENT_WINDOW_MS,
  PaymentsRefundReply,
  PaymentsRegisterReply,
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
import type { CardNetwork } from '../adapters/cardnet/card-network.ts';
import type { PaymentsRepository } from '../adapters/payments-repository.ts';
import { refusalOf } from '../domain/charge.ts';
import { paymentView } from '../domain/payment-record.ts';
import { idempotent, type HeldKey, type IdempotencyDeps } from './idempotency.ts';
import { openAttempt, resumeRegistration } from './open-attempt.ts';
import { RefundPending, type refunder } from './refund.ts';
import { settlementRunner } from './settlement.ts';

export interface PaymentsHandlersDeps {
  nats: NatsConnection;
  prefix: string;
  repository: PaymentsRepository;
  cardNetworks: Record<'test' | 'live', CardNetwork>;
  logger: Logger;
  /** Base URL of the gateway's pages: the card network sends payers back there. */
  publicBaseUrl: string;
  idempotency: IdempotencyDeps;
  refund: ReturnType<typeof refunder>;
  windowMs?: number;
  clock?: () => Date;
}

/** payments.register, payments.get and payments.refund (the merchant API's operations). */
export function servePaymentsHandlers(deps: PaymentsHandlersDeps): Promise<RpcServer[]> {
  const { nats, prefix, repository, logger } = deps;
  const clock = deps.clock ?? (() => new Date());
  const windowMs = deps.windowMs ?? PAYMENT_WINDOW_MS;
  // A registration holds its payment's settlement lease as long as its key's lease: a
  // retry that takes the key over from a dead (or paused) try takes the payment over too.
  const leaseMs = deps.idempotency.leaseMs;
  const open = { ...deps, windowMs, clock, leaseMs };
  // Registering an order moves no money: nothing here fences a call on `callMs`.
  const withSettlement = settlementRunner({ repository, logger, leaseMs, callMs: leaseMs });

  async function registerOnce(
    terms: MerchantTerms,
    body: RegisterPaymentBody,
    held: HeldKey | null,
  ): Promise<PaymentsRegisterReply> {
    // An earlier try committed the payment and died unanswered: this retry answers it.
    if (held?.paymentId) {
      const resumed = await resumeRegistration({ ...open, withSettlement }, held.paymentId);
      return {
        payment: paymentView(resumed.record),
        checkoutToken: resumed.checkoutToken,
        replayed: true,
      };
    }
    const refusal = refusalOf(body, terms);
    if (refusal)
      throw new AppError(
        refusal.code,
        refusal.message,
        refusal.details ? { details: refusal.details } : {},
      );

    const opened = await openAttempt(
      open,
      {
        terms,
        channel: 'CHECKOUT',
        reference: body.reference,
        referenceKind: 'order',
        epoch: 0,
        amount: body.amount,
        language: body.language ?? 'fr',
        successUrl: body.successUrl ?? null,
        failureUrl: body.failureUrl ?? null,
        metadata: body.metadata ?? null,
      },
      held ? { idempotencyKey: { key: held.key, owner: held.owner } } : {},
    );
    if (!opened) {
      throw new AppError('PAYMENT_INSTANCE409_DUPLICATE_REFERENCE', 'reference already used', {
        details: { reference: body.reference },
      });
    }
    return {
      payment: paymentView(opened.record),
      checkoutToken: opened.checkoutToken,
      replayed: false,
    };
  }

  async function register({ merchant, payment, idempotency }: PaymentsRegisterRequest) {
    const scope = { merchantId: merchant.merchantId, mode: merchant.mode };
    const { value, replayed } = await idempotent(
      deps.idempotency,
      scope,
      idempotency,
      PaymentsRegisterReply,
      (held) => registerOnce(merchant, payment, held),
    );
    return { ...value, replayed: replayed || value.replayed };
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
      async ({ idempotency, ...request }) => {
        const refund = () => deps.refund({ ...request, idempotencyKey: idempotency?.key ?? null });
        try {
          return (
            await idempotent(deps.idempotency, request, idempotency, PaymentsRefundReply, refund)
          ).value;
        } catch (error) {
          // Pending at the card network: answered (202), never stored for its key, so
          // the key's retry learns the outcome.
          if (error instanceof RefundPending) return error.reply;
          throw error;
        }
      },
      logger,
    ),
  ]);
}

function notFound(id: string): AppError {
  return new AppError('PAYMENT_INSTANCE404_NOT_FOUND', 'payment not found', { details: { id } });
}
