import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  paymentLinkReference,
  PaymentLinkPayReply,
  type PaymentLinkPayRequest,
} from '@dzpay/contracts';
import { AppError, isAppError } from '@dzpay/platform';
import type { PaymentLinksRepository } from './links-repository.ts';
import type { PaymentsRepository } from '../store/payments-repository.ts';
import { refusalError, refusalOf } from '../domain/charge.ts';
import {
  heldUntilOf,
  isIdlePress,
  isStaleHolder,
  linkAmountOf,
  linkRefusalOf,
  type LinkHolder,
  type PaymentLinkRecord,
} from './link-rules.ts';
import type { PaymentRecord } from '../domain/payment-record.ts';
import type { PaymentsContext } from '../context.ts';
import { idempotent, STILL_RUNNING_MESSAGE, type HeldKey } from '../store/idempotency.ts';
import { openAttempt, resumeRegistration } from '../lifecycle/open-attempt.ts';

/** How many references a payment tries before giving up (a merchant may have used one). */
const MAX_REFERENCE_TRIES = 3;

export const linkNotFound = () =>
  new AppError('PAYMENT_LINK404_NOT_FOUND', 'payment link not found');

/** A stale holder the card network could not settle yet: when paying may be tried again. */
const STALE_RETRY_MS = 60_000;
/** How long the same form sent again waits for its first send to answer (a double click). */
const SAME_FORM_WAIT_MS = 10_000;
const SAME_FORM_POLL_MS = 100;

/**
 * A payer pays through a link: an ordinary hosted-checkout payment of the link's
 * merchant and mode, the link's n-th (its reference `link-<id>-<n>`), carrying the
 * link's metadata and id. A single-use link's payment takes the link's one sale in the
 * same insert (payments_one_link_sale): of two payers at once, one gets a checkout and
 * the other is told the link is being paid; a payment that fails or expires frees it.
 *
 * The payer's page sends a nonce of its render (`attempt`): it runs as an idempotency
 * key scoped to the link, so the same form sent again (a double click, a retry after the
 * gateway gave up waiting) answers the payment it opened, never "someone is paying".
 */
export function linkPayer(
  ctx: PaymentsContext,
  links: PaymentLinksRepository,
): (request: PaymentLinkPayRequest) => Promise<PaymentLinkPayReply> {
  const open = ctx;
  const pressHoldEnded = (payment: PaymentRecord) =>
    ctx.clock() >=
    heldUntilOf({ ...payment, cardOrderPlaced: payment.cardnetOrderId !== null }, ctx.pressHoldMs);

  /** The payments repository whose inserts name the link (openAttempt inserts through it). */
  const throughLink = (link: PaymentLinkRecord): PaymentsRepository => ({
    ...open.repository,
    insert: (payment, options = {}) =>
      open.repository.insert(payment, {
        ...options,
        link: { id: link.id, once: link.singleUse },
      }),
  });

  /**
   * A holder whose hold ended is settled now. One past its window as the sweeper would
   * settle it (its card order cancelled first, or recorded as paid if it was): never
   * freed while it may still be paid, and left held when it cannot be settled yet (the
   * card network unreachable). One whose payer pressed and never reached the card form
   * has no order to ask about: it expires.
   */
  async function settleStale(holder: LinkHolder): Promise<void> {
    const record = await open.repository.findById(holder.paymentId);
    if (!record) return;
    // Settled as the sweeper would (its card order asked about first), or, pressed and
    // never taken to the card form, expired unless its order was placed meanwhile.
    const settled = isIdlePress(holder, open.clock())
      ? ctx.settle.expireUnplaced(record, pressHoldEnded)
      : ctx.settle.reconcile(record);
    await settled.catch((err: unknown) => {
      open.logger.warn(
        { err, paymentId: holder.paymentId },
        'stale holder of a payment link not settled yet',
      );
    });
  }

  /** The link as it is now, refused when it takes no payment. */
  async function payable(request: PaymentLinkPayRequest) {
    let found = await links.findByToken(request.token);
    const { merchant } = request;
    if (
      !found ||
      found.link.merchantId !== merchant.merchantId ||
      found.link.mode !== merchant.mode
    )
      throw linkNotFound();
    if (found.link.singleUse && isStaleHolder(found.holder, open.clock())) {
      await settleStale(found.holder);
      found = (await links.findByToken(request.token)) ?? found;
      const now = open.clock();
      // Still held: its order could not be cancelled (or read) yet, and it may still be
      // paid. The link stays held, and the payer is told when to try again.
      if (isStaleHolder(found.holder, now)) {
        throw new AppError('PAYMENT_LINK409_BEING_PAID', 'another payer is paying this link now', {
          details: {
            paymentLinkId: found.link.id,
            retryAt: new Date(now.getTime() + STALE_RETRY_MS).toISOString(),
          },
        });
      }
    }
    const refused = linkRefusalOf(found.link, found.holder, open.clock());
    if (refused) throw refusalError(refused);
    return found.link;
  }

  async function payOnce(
    request: PaymentLinkPayRequest,
    held: HeldKey | null,
  ): Promise<PaymentLinkPayReply> {
    // An earlier send of this form committed its payment and died unanswered: answer it.
    if (held?.paymentId) {
      const resumed = await resumeRegistration(
        { ...open, withSettlement: ctx.withKeyLease },
        held.paymentId,
      );
      return { paymentId: resumed.record.id, checkoutToken: resumed.checkoutToken };
    }
    const link = await payable(request);
    const amount = linkAmountOf(link, request.amount);
    if (!amount.ok) throw refusalError(amount.error);
    const terms = refusalOf(
      {
        amount: amount.value,
        currency: 'DZD',
        reference: link.id,
        ...(link.metadata ? { metadata: link.metadata as never } : {}),
      },
      request.merchant,
    );
    if (terms) throw refusalError(terms);

    for (let tries = 0; tries < MAX_REFERENCE_TRIES; tries++) {
      const number = await links.nextNumber(link.id, open.clock());
      // Deactivated or expired since it was read: refused as the page would be now.
      if (number === null) {
        await payable(request);
        continue;
      }
      const opened = await openAttempt(
        { ...open, repository: throughLink(link) },
        {
          terms: request.merchant,
          channel: 'CHECKOUT',
          reference: paymentLinkReference(link.id, number),
          referenceKind: 'order',
          epoch: 0,
          amount: amount.value,
          language: request.language,
          metadata: link.metadata,
        },
        held ? { idempotencyKey: { key: held.key, owner: held.owner } } : {},
      );
      if (opened) return { paymentId: opened.record.id, checkoutToken: opened.checkoutToken };
      // Not inserted: another payer holds (or paid) the single-use link, which payable()
      // now says; else the merchant used this reference for a payment of their own, and
      // the link's next number is tried.
      if (link.singleUse) await payable(request);
    }
    throw new AppError('SERVICE503_UNAVAILABLE', 'no free reference for the payment; retry', {
      details: { retryAfterSeconds: 1 },
    });
  }

  return async (request) => {
    if (!request.attempt) return payOnce(request, null);
    const found = await links.findByToken(request.token);
    if (!found) throw linkNotFound();
    const scope = { merchantId: request.merchant.merchantId, mode: request.merchant.mode };
    const idempotency = {
      // Scoped to the link: a nonce means nothing on another link's page.
      key: `link:${found.link.id}:${request.attempt}`,
      fingerprint: fingerprintOf(request),
    };
    const deadline = Date.now() + SAME_FORM_WAIT_MS;
    for (;;) {
      try {
        const { value } = await idempotent(
          ctx.idempotency,
          scope,
          idempotency,
          PaymentLinkPayReply,
          (held) => payOnce(request, held),
        );
        return value;
      } catch (error) {
        // The same form's first send is still registering (a double click): its answer,
        // once stored, is this one's too.
        if (!isStillRunning(error) || Date.now() >= deadline) throw error;
        await sleep(SAME_FORM_POLL_MS);
      }
    }
  };
}

/** What the same form sends again: the link, the amount and the language. */
function fingerprintOf(request: PaymentLinkPayRequest): string {
  const { token, amount, language } = request;
  return createHash('sha256')
    .update(JSON.stringify({ token, amount: amount ?? null, language }))
    .digest('hex');
}

/** idempotent()'s "a request with this key is still running", not a reuse with another body. */
function isStillRunning(error: unknown): boolean {
  return (
    isAppError(error) &&
    error.code === 'IDEMPOTENCY409_KEY_REUSED' &&
    error.message === STILL_RUNNING_MESSAGE
  );
}
