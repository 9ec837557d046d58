// Payment links: schemas and NATS subjects.
import { z } from 'zod';
import { refusingBidiControls } from './bidi-controls.ts';
import { pageQuery } from './page-query.ts';
import { READ, rpc } from './rpc-definition.ts';
import { AnsweredAgain, IdempotencyRequest, Language } from './payments/payment.ts';
import { MerchantTerms, PaymentMetadata } from './payments/registration.ts';
import { Mode, MerchantScope } from './scope.ts';
import { cleanText } from './validation.ts';

/**
 * A payment link is a page at `{PUBLIC_BASE_URL}/link/{token}` that makes ordinary
 * hosted-checkout payments for its merchant and mode: a fixed amount, or one the payer
 * chooses between two bounds; single use (one successful payment) or reusable; until an
 * optional expiry or until the merchant deactivates it. Amounts are integer centimes, as
 * in the payments API.
 */

/** Most links one page of `GET /api/v1/payment-links` holds; the default is 20. */
export const PAYMENT_LINKS_PAGE_MAX = 100;
export const PAYMENT_LINKS_PAGE_DEFAULT = 20;
export const PAYMENT_LINK_LABEL_MAX = 200;

/** What a link's page offers now: `active` takes payments; the others say why it does not. */
export const PaymentLinkState = z.enum(['active', 'expired', 'deactivated', 'used']);
export type PaymentLinkState = z.infer<typeof PaymentLinkState>;

/** The public part of a link's URL: unguessable, so links cannot be listed by trying. */
export const PaymentLinkToken = z.string().regex(/^pl_[A-Za-z0-9_-]{22}$/);

const centimes = (field: string) =>
  z
    .int({ error: `${field} must be an integer number of centimes` })
    .positive({ error: `${field} must be positive` });

/**
 * Body of POST /api/v1/payment-links. Either `amount` (fixed), or `minAmount` and
 * `maxAmount` (the payer chooses). The merchant's own range, the expiry being in the
 * future and the metadata's size are checked by payments, with their own error codes.
 */
export const CreatePaymentLinkBody = z
  .strictObject({
    // The payer page's title and heading, and the dashboard's: nothing in it may reorder
    // what payers and merchants read.
    label: refusingBidiControls(
      z
        .string({ error: 'label must be a string' })
        .trim()
        .min(1, { error: 'label should not be empty' })
        .max(PAYMENT_LINK_LABEL_MAX, {
          error: `label must be at most ${PAYMENT_LINK_LABEL_MAX} characters`,
        })
        .refine(cleanText, {
          error: 'label must not contain control characters or broken Unicode',
        }),
      'label',
    ),
    amount: centimes('amount').nullish(),
    minAmount: centimes('minAmount').nullish(),
    maxAmount: centimes('maxAmount').nullish(),
    currency: z.literal('DZD', { error: 'currency must be DZD' }).nullish(),
    singleUse: z.boolean({ error: 'singleUse must be a boolean' }).nullish(),
    expiresAt: z.iso
      .datetime({ offset: true, error: 'expiresAt must be an ISO 8601 date-time with offset' })
      .transform((value) => new Date(value).toISOString())
      .nullish(),
    /** The payer page's language until the payer picks another; default fr. */
    language: Language.nullish(),
    metadata: PaymentMetadata.nullish(),
  })
  .superRefine((body, ctx) => {
    const fixed = body.amount != null;
    const open = body.minAmount != null || body.maxAmount != null;
    const issue = (field: string, message: string) =>
      ctx.addIssue({ code: 'custom', path: [field], message });
    if (fixed && open) issue('amount', 'give amount, or minAmount and maxAmount, not both');
    else if (!fixed && !open) issue('amount', 'give amount, or minAmount and maxAmount');
    else if (open && body.minAmount == null) issue('minAmount', 'minAmount goes with maxAmount');
    else if (open && body.maxAmount == null) issue('maxAmount', 'maxAmount goes with minAmount');
    else if (open && body.minAmount! > body.maxAmount!)
      issue('maxAmount', 'maxAmount must not be below minAmount');
  });
export type CreatePaymentLinkBody = z.output<typeof CreatePaymentLinkBody>;
export type CreatePaymentLinkInput = z.input<typeof CreatePaymentLinkBody>;

/** A link as the merchant sees it (API and dashboard). */
export const PaymentLinkView = z.object({
  id: z.uuid(),
  /** The payer's page; its QR code encodes this URL. */
  url: z.url(),
  label: z.string(),
  /** Centimes for a fixed amount; null when the payer chooses. */
  amount: z.int().nullable(),
  minAmount: z.int().nullable(),
  maxAmount: z.int().nullable(),
  currency: z.literal('DZD'),
  singleUse: z.boolean(),
  expiresAt: z.iso.datetime().nullable(),
  language: Language,
  metadata: z.record(z.string(), z.json()).nullable(),
  state: PaymentLinkState,
  /** Payments made through the link that succeeded (refunded ones included). */
  paidCount: z.int().nonnegative(),
  /** Centimes before fees of those payments. */
  paidAmount: z.int().nonnegative(),
  deactivatedAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type PaymentLinkView = z.infer<typeof PaymentLinkView>;

export const PaymentLinksPage = z.object({
  links: z.array(PaymentLinkView),
  /** Give it as `cursor` for the next (older) page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type PaymentLinksPage = z.infer<typeof PaymentLinksPage>;

/** `GET /api/v1/payment-links`: a page size and the cursor of the previous page. */
export const PaymentLinksListQuery = z.strictObject(pageQuery(PAYMENT_LINKS_PAGE_MAX));
export type PaymentLinksListQuery = z.input<typeof PaymentLinksListQuery>;

/** What the payer's page shows: no metadata, no counts, only what paying needs. */
export const PaymentLinkPublicView = z.object({
  merchantId: z.uuid(),
  mode: Mode,
  label: z.string(),
  amount: z.int().nullable(),
  minAmount: z.int().nullable(),
  maxAmount: z.int().nullable(),
  language: Language,
  state: PaymentLinkState,
  expiresAt: z.iso.datetime().nullable(),
  /** A single-use link one payer is paying now: when that payer's window ends. */
  busyUntil: z.iso.datetime().nullable(),
});
export type PaymentLinkPublicView = z.infer<typeof PaymentLinkPublicView>;

// ---- NATS messages between the edges and payments ----

export const PaymentLinkCreateRequest = z.object({
  merchant: MerchantTerms,
  link: CreatePaymentLinkBody,
  idempotency: IdempotencyRequest.optional(),
});
/** A link created, deactivated, or answered again (AnsweredAgain). */
export const PaymentLinkWriteReply = PaymentLinkView.extend(AnsweredAgain.shape);
export type PaymentLinkWriteReply = z.infer<typeof PaymentLinkWriteReply>;
export type PaymentLinkCreateRequest = z.infer<typeof PaymentLinkCreateRequest>;

export const PaymentLinksListRequest = MerchantScope.extend({
  limit: z.int().min(1).max(PAYMENT_LINKS_PAGE_MAX),
  cursor: z.string().optional(),
});
export type PaymentLinksListRequest = z.infer<typeof PaymentLinksListRequest>;

export const PaymentLinkRequest = MerchantScope.extend({ id: z.string() });
export type PaymentLinkRequest = z.infer<typeof PaymentLinkRequest>;

export const PaymentLinkTokenRequest = z.object({ token: z.string().min(1).max(255) });

/** A payer page's nonce: 16 to 64 URL-safe characters (the gateway makes 22). */
export const PaymentLinkAttempt = z.string().regex(/^[A-Za-z0-9_-]{16,64}$/);

export const PaymentLinkPayRequest = z.object({
  token: z.string().min(1).max(255),
  /** The merchant's terms now (the gateway reads them): fee, range, wallet. */
  merchant: MerchantTerms,
  /** Centimes the payer chose; only for a link whose payer chooses. */
  amount: z.int().positive().optional(),
  language: Language,
  /**
   * The payer's page render that pressed pay (a random nonce in its form): the same form
   * sent again (a double click, a retry after a timeout) resumes the payment it opened.
   */
  attempt: PaymentLinkAttempt.optional(),
});
export type PaymentLinkPayRequest = z.infer<typeof PaymentLinkPayRequest>;

export const PaymentLinkPayReply = z.object({
  paymentId: z.uuid(),
  /** The secret part of the payment's checkout link (as payments.register answers it). */
  checkoutToken: z.string(),
});
export type PaymentLinkPayReply = z.infer<typeof PaymentLinkPayReply>;

/** The payment links' NATS subjects, spread into Rpc (rpc.ts). */
export const PaymentLinksRpc = {
  paymentLinksCreate: rpc('payments.links.create', PaymentLinkCreateRequest, PaymentLinkWriteReply),
  paymentLinksList: rpc('payments.links.list', PaymentLinksListRequest, PaymentLinksPage, READ),
  paymentLinksGet: rpc('payments.links.get', PaymentLinkRequest, PaymentLinkView, READ),
  paymentLinksDeactivate: rpc(
    'payments.links.deactivate',
    PaymentLinkRequest,
    PaymentLinkWriteReply,
  ),
  /** The payer's page: a link by its public token. */
  paymentLinkView: rpc('payments.links.view', PaymentLinkTokenRequest, PaymentLinkPublicView, READ),
  /** The payer pays: a payment made through the link, answered with its checkout. */
  paymentLinkPay: rpc('payments.links.pay', PaymentLinkPayRequest, PaymentLinkPayReply),
} as const;

// ---- The merchant API's success bodies ----

const withData = <S extends z.ZodType>(statusCode: 200 | 201, data: S) =>
  z.object({ statusCode: z.literal(statusCode), message: z.string(), data });

/** 201 of POST /api/v1/payment-links. */
export const PaymentLinkCreatedResponse = withData(201, PaymentLinkView);
/** 200 of GET /api/v1/payment-links/{id} and POST …/{id}/deactivate. */
export const PaymentLinkResponse = withData(200, PaymentLinkView);
/** 200 of GET /api/v1/payment-links. */
export const PaymentLinksListResponse = withData(200, PaymentLinksPage);

/**
 * The reference of a payment made through a link: `link-<link id>-<n>`, the link's n-th
 * payment. It names the link in every view, export and webhook of the payment.
 */
export function paymentLinkReference(linkId: string, n: number): string {
  return `link-${linkId}-${n}`;
}
