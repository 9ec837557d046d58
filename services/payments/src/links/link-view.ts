import type { PaymentLinkPublicView, PaymentLinkView } from '@dzpay/contracts';
import {
  isBusyHolder,
  linkStateOf,
  type LinkHolder,
  type PaymentLinkRecord,
} from './link-rules.ts';

/** The payer's page of a link: `{PUBLIC_BASE_URL}/link/{token}` (the gateway's route). */
function linkUrlOf(publicBaseUrl: string, token: string): string {
  return new URL(`/link/${encodeURIComponent(token)}`, publicBaseUrl).href;
}

/** A link as the merchant sees it, its state as of `now`. */
export function paymentLinkView(
  entry: {
    link: PaymentLinkRecord;
    holder: LinkHolder | null;
    paidCount: number;
    paidAmount: number;
  },
  publicBaseUrl: string,
  now: Date,
): PaymentLinkView {
  const { link } = entry;
  return {
    id: link.id,
    url: linkUrlOf(publicBaseUrl, link.token),
    label: link.label,
    amount: link.amount,
    minAmount: link.minAmount,
    maxAmount: link.maxAmount,
    currency: 'DZD',
    singleUse: link.singleUse,
    expiresAt: link.expiresAt?.toISOString() ?? null,
    language: link.language,
    metadata: link.metadata as PaymentLinkView['metadata'],
    state: linkStateOf(link, entry.holder, now),
    paidCount: entry.paidCount,
    paidAmount: entry.paidAmount,
    deactivatedAt: link.deactivatedAt?.toISOString() ?? null,
    createdAt: link.createdAt.toISOString(),
    updatedAt: link.updatedAt.toISOString(),
  };
}

/** What the payer's page needs: no metadata, no counts. */
export function paymentLinkPublicView(
  entry: { link: PaymentLinkRecord; holder: LinkHolder | null },
  now: Date,
): PaymentLinkPublicView {
  const { link, holder } = entry;
  // A holder past its hold is not waited for: the page offers the form, and paying
  // settles that holder first (payment-link-pay.ts).
  return {
    merchantId: link.merchantId,
    mode: link.mode,
    label: link.label,
    amount: link.amount,
    minAmount: link.minAmount,
    maxAmount: link.maxAmount,
    language: link.language,
    state: linkStateOf(link, holder, now),
    expiresAt: link.expiresAt?.toISOString() ?? null,
    busyUntil: link.singleUse && isBusyHolder(holder, now) ? holder.heldUntil.toISOString() : null,
  };
}
