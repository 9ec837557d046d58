import {
  paymentLinkReference,
  type PaymentLinkPayReply,
  type PaymentLinkPayRequest,
} from '@dzpay/contracts';
import { AppError } from '@dzpay/platform';
import type { PaymentLinksRepository } from '../adapters/payment-links-repository.ts';
import type { PaymentsRepository } from '../adapters/payments-repository.ts';
import { refusalOf, type Refusal } from '../domain/charge.ts';
import { linkAmountOf, linkRefusalOf, type PaymentLinkRecord } from '../domain/payment-link.ts';
import { openAttempt, type OpenAttemptDeps } from './open-attempt.ts';

/** How many references a payment tries before giving up (a merchant may have used one). */
const MAX_REFERENCE_TRIES = 3;

export function refusalError(refusal: Refusal): AppError {
  return new AppError(
    refusal.code,
    refusal.message,
    refusal.details ? { details: refusal.details } : {},
  );
}

export const linkNotFound = () =>
  new AppError('PAYMENT_LINK404_NOT_FOUND', 'payment link not found');

/**
 * A payer pays through a link: an ordinary hosted-checkout payment of the link's
 * merchant and mode, the link's n-th (its reference `link-<id>-<n>`), carrying the
 * link's metadata and id. A single-use link's payment takes the link's one sale in the
 * same insert (payments_one_link_sale): of two payers at once, one gets a checkout and
 * the other is told the link is being paid; a payment that fails or expires frees it.
 */
export function linkPayer(deps: {
  links: PaymentLinksRepository;
  open: OpenAttemptDeps;
}): (request: PaymentLinkPayRequest) => Promise<PaymentLinkPayReply> {
  const { links, open } = deps;

  /** The payments repository whose inserts name the link (openAttempt inserts through it). */
  const throughLink = (link: PaymentLinkRecord): PaymentsRepository => ({
    ...open.repository,
    insert: (payment, options = {}) =>
      open.repository.insert(payment, {
        ...options,
        link: { id: link.id, once: link.singleUse },
      }),
  });

  /** The link as it is now, refused when it takes no payment. */
  async function payable(request: PaymentLinkPayRequest) {
    const found = await links.findByToken(request.token);
    const { merchant } = request;
    if (
      !found ||
      found.link.merchantId !== merchant.merchantId ||
      found.link.mode !== merchant.mode
    )
      throw linkNotFound();
    const refused = linkRefusalOf(found.link, found.holder, open.clock());
    if (refused) throw refusalError(refused);
    return found.link;
  }

  return async (request) => {
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
  };
}
