import { z } from 'zod';
import { Language } from './payments/payment.ts';
import { MerchantTerms } from './payments/registration.ts';
import { MerchantScope } from './scope.ts';

/**
 * What the partner's GET {API_URL}/{reference} answers (ARCHITECTURE §6), as the partner
 * SDK defines it (one schema for both sides): the amount in DZD, at most two decimals.
 */
export { PartnerProduct } from '@dzpay/partner-sdk';

/**
 * Asks payments for a product of the merchant's partner. Only the merchant's scope
 * travels: payments reads the partner's server and sealed secret from the partner
 * directory itself, so no URL or secret crosses NATS.
 */
export const ProductLookupRequest = z.object({
  merchant: MerchantScope,
  reference: z.string().min(1).max(255),
});
export type ProductLookupRequest = z.infer<typeof ProductLookupRequest>;

/** Where an AGENCY attempt's amount comes from: the partner's product, or a QR configuration. */
export const AttemptSource = z.discriminatedUnion('kind', [
  /** The partner of the attempt's merchant and mode, read from the partner directory. */
  z.object({ kind: z.literal('product') }),
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
