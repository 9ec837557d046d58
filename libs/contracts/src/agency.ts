import { z } from 'zod';
import { Language, MerchantTerms } from './payments.ts';

/** The partner's own server for one merchant and mode, as payments needs it. */
export const PartnerEndpoint = z.object({
  apiUrl: z.url(),
  apiSecret: z.string().min(1),
});
export type PartnerEndpoint = z.infer<typeof PartnerEndpoint>;

/**
 * What the partner's GET {API_URL}/{reference} answers (ARCHITECTURE §6): the amount is
 * DZD, as partners count it, with at most two decimals.
 */
export const PartnerProduct = z.object({
  reference: z.string(),
  amount: z.number().positive(),
  currency: z.literal('DZD'),
  label: z.string().max(200).optional(),
  description: z.string().max(1000).optional(),
  metadata: z.record(z.string(), z.json()).optional(),
});
export type PartnerProduct = z.infer<typeof PartnerProduct>;

export const ProductLookupRequest = z.object({
  partner: PartnerEndpoint,
  reference: z.string().min(1).max(255),
});

/** Where an AGENCY attempt's amount comes from: the partner's product, or a QR configuration. */
export const AttemptSource = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('product'), partner: PartnerEndpoint }),
  z.object({
    kind: z.literal('qr'),
    /** Centimes, one of the configured amounts. */
    amount: z.int().positive(),
    /** A single-use configuration locks its token for the attempt; a multi-use one does not. */
    singleUse: z.boolean(),
    /**
     * The configuration's version, the attempt's epoch: a single-use configuration is
     * paid once per version, and a success clears only the version it paid.
     */
    configVersion: z.int().positive(),
  }),
]);
export type AttemptSource = z.infer<typeof AttemptSource>;

export const AttemptStartRequest = z.object({
  merchant: MerchantTerms,
  reference: z.string().min(1).max(255),
  language: Language,
  source: AttemptSource,
});
export type AttemptStartRequest = z.infer<typeof AttemptStartRequest>;

export const AttemptStartReply = z.object({
  paymentId: z.uuid(),
  /** The payer continues on /checkout/{token}, like a hosted checkout. */
  checkoutToken: z.string(),
});
