import { z } from 'zod';
import { Mode } from './scope.ts';

/**
 * A merchant's partner server as dzpay's services other than the gateway need it, kept
 * current by the gateway in the NATS KV bucket `<prefix>_PARTNERS` under the key
 * `<merchantId>.<mode>`. Secrets stay sealed (libs/platform sealSecret, under
 * SECRETS_KEY, bound to `partnerSecretOwner(merchantId, mode)` for the API secret and
 * `signingSecretOwner(merchantId, mode)` for signing secrets).
 */
export const PartnerDirectoryEntry = z.object({
  merchantId: z.uuid(),
  mode: Mode,
  /** The partner's API (product lookups); null for a merchant that only set a webhook URL. */
  apiUrl: z.url().nullable(),
  /** base64 of the sealed API secret (sent as `Authorization: Bearer`); null with apiUrl. */
  apiSecretSealed: z.string().nullable(),
  /** Where webhooks go when the merchant chose it; absent or null: `{apiUrl}/webhooks/platform`. */
  webhookUrl: z.url().nullable().optional(),
  /** The webhook kinds the merchant wants; absent: DEFAULT_WEBHOOK_EVENTS. */
  webhookEvents: z.array(z.string()).optional(),
  /**
   * Webhook signing secrets, newest first, each base64 of its sealed value. The first
   * signs X-Signature; all of them sign webhook-signature, so a rotation has a grace
   * period. `validUntil` null means no end.
   */
  signingSecrets: z.array(
    z.object({ sealed: z.string(), validUntil: z.iso.datetime().nullable() }),
  ),
  /**
   * When the endpoint (or its merchant) last changed, in ms: gateway replicas publishing
   * at once never replace a newer entry with an older one.
   */
  version: z.number().int().nonnegative().optional(),
});
export type PartnerDirectoryEntry = z.infer<typeof PartnerDirectoryEntry>;

export const Buckets = { partners: 'PARTNERS' } as const;

export function partnerDirectoryKey(merchantId: string, mode: Mode): string {
  return `${merchantId}.${mode}`;
}
