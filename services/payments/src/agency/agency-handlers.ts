import { randomUUID } from 'node:crypto';
import {
  dzdToCentimes,
  hasAtMostTwoDecimals,
  Rpc,
  type AttemptStartRequest,
  type StatusSubject,
} from '@dzpay/contracts';
import { AppError, serveRpc, type RpcServer } from '@dzpay/platform';
import type { LookupProduct } from './partner-client.ts';
import type { Sale } from '../store/payments-repository.ts';
import type { ReferenceLocks } from './reference-lock.ts';
import { refusalOf } from '../domain/charge.ts';
import { isOpen } from '../domain/checkout-status.ts';
import { currentStateEvent, type PaymentRecord } from '../domain/payment-record.ts';
import type { ReferenceLockMetrics } from './lock-metrics.ts';
import type { ServedContext } from '../context.ts';
import { openAttempt } from '../lifecycle/open-attempt.ts';

/**
 * The AGENCY channel: a payer pays a partner's product reference (the partner says what
 * it costs, and under which reference it sells it) or a static QR code (its
 * configuration does). The reference is held while the attempt runs: by a product
 * always, by a QR code when its configuration is single use. Postgres decides who holds
 * it; Redis only turns the losers away early.
 */
export function serveAgencyHandlers(
  ctx: ServedContext,
  deps: {
    locks: ReferenceLocks;
    /** The partner's product, its server read from the partner directory. */
    lookupProduct: LookupProduct;
    lockMetrics?: ReferenceLockMetrics;
  },
): Promise<RpcServer[]> {
  const { repository, logger } = ctx;
  const { locks, lookupProduct } = deps;

  async function start({ merchant, reference: asked, language, source }: AttemptStartRequest) {
    const product =
      source.kind === 'product'
        ? await lookupProduct({ merchantId: merchant.merchantId, mode: merchant.mode }, asked)
        : null;
    // A product is sold under the partner's own reference, whatever spelling the payer
    // typed: `prod-abc` and `prod-ABC` are one sale, and one lock, when the partner's
    // lookup says they are one product. A QR code's token is dzpay's own, taken as is.
    const reference = product ? product.reference : asked;
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

    // A product is sold once; a single-use QR configuration once per version.
    const sale: Sale = {
      merchantId: merchant.merchantId,
      mode: merchant.mode,
      referenceKind: source.kind,
      reference,
      epoch: source.kind === 'qr' ? source.configVersion : 0,
    };
    if (holds) await passGate(sale);
    const open = () =>
      openAttempt(ctx, {
        terms: merchant,
        channel: 'AGENCY',
        reference,
        referenceKind: sale.referenceKind,
        epoch: sale.epoch,
        amount,
        language,
        locksReference: holds,
        productLabel: product?.label ?? null,
        metadata: product?.metadata ?? null,
      });
    // Postgres decides: the insert conflicts while another attempt holds or paid the
    // sale. A holder whose window closed is settled on the spot, and when it turns out
    // failed the sale is tried once more.
    for (let round = 0; round < 2; round++) {
      const opened = await open();
      if (opened) return { paymentId: opened.record.id, checkoutToken: opened.checkoutToken };
      refuseIfTaken(await holderOf(sale));
    }
    throw locked(null);
  }

  /** The attempt that holds or paid the sale, brought up to date when its window closed. */
  async function holderOf(sale: Sale): Promise<PaymentRecord | null> {
    const holder = await repository.saleHolder(sale);
    if (!holder || !isOpen(holder.status) || ctx.clock() < holder.expiresAt) return holder;
    // Until settlement has asked the card network it still holds the sale: the card may
    // have been paid in time.
    return ctx.settle.reconcile(holder).then(
      (settled) => (settled.status === 'success' || isOpen(settled.status) ? settled : null),
      () => holder,
    );
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

  /**
   * Redis's word first. A closed gate is checked against Postgres: a paid sale is
   * refused as paid, a held one as locked, and a gate nobody holds any more (a crash, a
   * flush, a holder just decided) is opened. Redis being down only costs the early refusal.
   */
  async function passGate(sale: Sale): Promise<void> {
    const ttl = ctx.windowMs;
    const acquire = () =>
      locks.acquire(sale, randomUUID(), ttl).catch((err: unknown) => {
        logger.warn({ err }, 'reference lock gate unavailable; Postgres decides alone');
        return true;
      });
    if (await acquire()) return;
    refuseIfTaken(await holderOf(sale));
    await locks.clear(sale).catch(() => undefined);
    await acquire();
  }

  /**
   * `payments.reference.held`: the attempt that holds the product or paid it, from the
   * rows, as its current state's event. Status asks before it calls a reference free,
   * since the stream may not have carried the attempt's events yet (docs/status.md).
   * Only reads: a holder whose window closed stays as it is until settlement decides it.
   */
  async function held({ merchantId, mode, reference }: StatusSubject) {
    const holder = await repository.saleHolder({
      merchantId,
      mode,
      referenceKind: 'product',
      reference,
      epoch: 0,
    });
    return { attempts: holder ? [currentStateEvent(randomUUID(), holder)] : [] };
  }

  return Promise.all([
    serveRpc(ctx.nats, ctx.prefix, Rpc.referenceHeld, held, logger),
    serveRpc(
      ctx.nats,
      ctx.prefix,
      Rpc.productLookup,
      ({ merchant, reference }) => lookupProduct(merchant, reference),
      logger,
    ),
    serveRpc(ctx.nats, ctx.prefix, Rpc.attemptStart, measuredStart, logger),
  ]);
}

/** Refuses a sale that another attempt paid (ALREADY_PAID) or holds (LOCKED). */
function refuseIfTaken(holder: PaymentRecord | null): void {
  if (!holder) return;
  if (holder.status === 'success') {
    throw new AppError('PARTNER409_ALREADY_PAID', 'this reference is already paid', {
      details: { reference: holder.reference },
    });
  }
  throw locked(holder);
}

function lockOutcomeOf(error: unknown): 'locked' | 'paid' | 'failed' {
  if (!(error instanceof AppError)) return 'failed';
  if (error.code === 'REFERENCE409_LOCKED') return 'locked';
  return error.code === 'PARTNER409_ALREADY_PAID' ? 'paid' : 'failed';
}

/** Another payer holds the reference: say until when, so the page can say when to retry. */
function locked(holder: PaymentRecord | null): AppError {
  // Past its window, an undecided holder has no end to tell: the card network decides.
  const ends = holder && !holder.awaitingVerdict && holder.expiresAt > new Date();
  const retryAt = ends ? holder.expiresAt.toISOString() : null;
  return new AppError('REFERENCE409_LOCKED', 'this reference is being paid', {
    details: { retryAt },
  });
}
