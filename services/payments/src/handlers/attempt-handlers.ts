import { randomUUID } from 'node:crypto';
import {
  dzdToCentimes,
  hasAtMostTwoDecimals,
  Rpc,
  type AttemptStartRequest,
  type MerchantScope,
} from '@dzpay/contracts';
import {
  AppError,
  serveRpc,
  type Logger,
  type NatsConnection,
  type RpcServer,
} from '@dzpay/platform';
import { lookupProduct } from '../adapters/partner-client.ts';
import type { PaymentsRepository } from '../adapters/payments-repository.ts';
import type { ReferenceLocks } from '../adapters/reference-lock.ts';
import { refusalOf } from '../domain/charge.ts';
import type { PaymentRecord } from '../domain/payment-record.ts';
import type { ReferenceLockMetrics } from '../adapters/lock-metrics.ts';
import { openAttempt, type OpenAttemptDeps } from './open-attempt.ts';
import type { Settler } from './settle.ts';

/**
 * The AGENCY channel: a payer pays a partner's product reference (the partner says what
 * it costs) or a static QR code (its configuration does). The reference is held while
 * the attempt runs: by a product always, by a QR code when its configuration is single
 * use. Postgres decides who holds it; Redis only turns the losers away early.
 */
export function serveAttemptHandlers(deps: {
  nats: NatsConnection;
  prefix: string;
  repository: PaymentsRepository;
  locks: ReferenceLocks;
  settle: Settler;
  logger: Logger;
  open: OpenAttemptDeps;
  lockMetrics?: ReferenceLockMetrics;
}): Promise<RpcServer[]> {
  const { repository, locks, logger } = deps;

  async function start({ merchant, reference, language, source }: AttemptStartRequest) {
    const scope = { merchantId: merchant.merchantId, mode: merchant.mode };
    const product =
      source.kind === 'product' ? await lookupProduct(source.partner, reference) : null;
    if (product && !hasAtMostTwoDecimals(product.amount)) {
      throw new AppError(
        'PARTNER503_UNAVAILABLE',
        'the partner gave an amount with more than two decimals',
      );
    }
    const amount = product ? dzdToCentimes(product.amount) : (source as { amount: number }).amount;
    const holds = source.kind === 'product' || source.singleUse;
    const refusal = refusalOf({ amount, currency: 'DZD', reference }, merchant);
    if (refusal)
      throw new AppError(
        refusal.code,
        refusal.message,
        refusal.details ? { details: refusal.details } : {},
      );

    if (holds) await passGate(scope, reference);
    // A product is paid once; a single-use QR configuration once since it was set. (The
    // partner may not know yet: its webhook can be on its way.)
    const paidAfter =
      source.kind === 'product'
        ? new Date(0)
        : source.singleUse
          ? new Date(source.configuredAt)
          : null;
    if (paidAfter && (await repository.paidSince(scope, reference, paidAfter))) {
      throw new AppError('PARTNER409_ALREADY_PAID', 'this reference is already paid', {
        details: { reference },
      });
    }
    const open = () =>
      openAttempt(deps.open, {
        terms: merchant,
        channel: 'AGENCY',
        reference,
        amount,
        language,
        locksReference: holds,
        productLabel: product?.label ?? null,
        metadata: product?.metadata ?? null,
      });
    let opened = await open();
    // Postgres says another attempt holds it. One whose window closed is settled on the
    // spot (its Redis gate may have expired with it), and the reference tried once more.
    if (
      !opened &&
      (await settleIfExpired(await repository.findLockHolder(scope, reference))) === null
    ) {
      opened = await open();
    }
    if (!opened) throw locked(await repository.findLockHolder(scope, reference));
    return { paymentId: opened.record.id, checkoutToken: opened.checkoutToken };
  }

  /** start, with the outcome of attempts that hold a reference counted. */
  async function measuredStart(request: AttemptStartRequest) {
    const holds = request.source.kind === 'product' || request.source.singleUse;
    try {
      const started = await start(request);
      if (holds) deps.lockMetrics?.attempted('held');
      return started;
    } catch (error) {
      if (holds) deps.lockMetrics?.attempted(lockOutcomeOf(error));
      throw error;
    }
  }

  /** The holder, or null once it is decided (settled here when its window closed). */
  async function settleIfExpired(holder: PaymentRecord | null): Promise<PaymentRecord | null> {
    if (!holder || deps.open.clock() < holder.expiresAt) return holder;
    return deps.settle.reconcile(holder).then(
      (settled) =>
        settled.status === 'pending' || settled.status === 'processing' ? settled : null,
      () => holder,
    );
  }

  /**
   * Redis's word first. A closed gate is checked against Postgres: an attempt whose
   * window closed is settled on the spot, and a gate nobody holds any more (a crash, a
   * flush) is opened. Redis being down only costs the early refusal.
   */
  async function passGate(scope: MerchantScope, reference: string): Promise<void> {
    const ttl = deps.open.windowMs;
    const acquire = () =>
      locks
        .acquire(scope.merchantId, scope.mode, reference, randomUUID(), ttl)
        .catch((err: unknown) => {
          logger.warn({ err }, 'reference lock gate unavailable; Postgres decides alone');
          return true;
        });
    if (await acquire()) return;
    let holder = await repository.findLockHolder(scope, reference);
    if (holder && deps.open.clock() >= holder.expiresAt) {
      holder = await deps.settle.reconcile(holder).then(
        (settled) =>
          settled.status === 'pending' || settled.status === 'processing' ? settled : null,
        () => holder,
      );
    }
    if (holder) throw locked(holder);
    await locks.clear(scope.merchantId, scope.mode, reference).catch(() => undefined);
    await acquire();
  }

  return Promise.all([
    serveRpc(
      deps.nats,
      deps.prefix,
      Rpc.productLookup,
      ({ partner, reference }) => lookupProduct(partner, reference),
      logger,
    ),
    serveRpc(deps.nats, deps.prefix, Rpc.attemptStart, measuredStart, logger),
  ]);
}

function lockOutcomeOf(error: unknown): 'locked' | 'paid' | 'failed' {
  if (!(error instanceof AppError)) return 'failed';
  if (error.code === 'REFERENCE409_LOCKED') return 'locked';
  return error.code === 'PARTNER409_ALREADY_PAID' ? 'paid' : 'failed';
}

/** Another payer holds the reference: say until when, so the page can say when to retry. */
function locked(holder: PaymentRecord | null): AppError {
  const retryAt = holder && !holder.awaitingVerdict ? holder.expiresAt.toISOString() : null;
  return new AppError('REFERENCE409_LOCKED', 'this reference is being paid', {
    details: { retryAt },
  });
}
