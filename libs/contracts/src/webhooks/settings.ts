import { z } from 'zod';
import { MerchantScope } from '../scope.ts';
import { WebhookEventKind } from './webhook-types.ts';

/**
 * Where a merchant's webhooks go and which kinds, the secret that signs them and its
 * rotation, and a test event sent while the merchant waits: HTTP bodies and views, and
 * the NATS request of the test.
 */

/** Longest grace a rotated signing secret may get (a week). */
export const MAX_GRACE_HOURS = 168;

/** `GET /api/v1/webhooks/settings`: never a secret. */
export const WebhookSettingsView = z.object({
  /** Where webhooks go: the chosen URL, else `{API_URL}/webhooks/platform`; null: nowhere yet. */
  url: z.string().nullable(),
  events: z.array(WebhookEventKind),
  signingSecretCreatedAt: z.iso.datetime().optional(),
  previousSecretValidUntil: z.iso.datetime().optional(),
});
export type WebhookSettingsView = z.infer<typeof WebhookSettingsView>;

/** `PUT /api/v1/webhooks/settings`: what is absent is kept; `url: null` goes back to the default. */
export const WebhookSettingsUpdate = z.strictObject({
  url: z.string().max(2048).nullable().optional(),
  events: z
    .array(WebhookEventKind)
    .min(1, 'events must name at least one kind')
    .refine((kinds) => new Set(kinds).size === kinds.length, 'events must not repeat a kind')
    .optional(),
});
export type WebhookSettingsUpdate = z.infer<typeof WebhookSettingsUpdate>;

/** The PUT's answer: the settings, and the signing secret the first time one was made. */
export const WebhookSettingsUpdated = WebhookSettingsView.extend({
  signingSecret: z.string().optional(),
});

/** `POST /api/v1/webhooks/signing-secret/rotate`. */
export const SigningSecretRotate = z.strictObject({
  graceHours: z.int().min(0).max(MAX_GRACE_HOURS).optional(),
});

/** The rotation's answer: the new secret, shown this once. */
export const SigningSecretRotated = z.object({
  signingSecret: z.string(),
  signingSecretCreatedAt: z.iso.datetime(),
  /** Until when the previous secret still signs (absent with a grace of 0). */
  previousSecretValidUntil: z.iso.datetime().optional(),
});

/** `POST /api/v1/webhooks/test`: a signed `webhook.test` event sent now, to the settings' URL. */
export const WebhookTestSendRequest = MerchantScope.extend({
  /** The version of the settings the caller last saw: an older directory entry is read again. */
  minVersion: z.int().nonnegative().optional(),
});

/** The test event's one attempt, made while the merchant waits. */
export const WebhookTestResult = z.object({
  eventId: z.uuid(),
  url: z.string(),
  ok: z.boolean(),
  statusCode: z.int().nullable(),
  latencyMs: z.int().nonnegative(),
  error: z.string().nullable(),
});
export type WebhookTestResult = z.infer<typeof WebhookTestResult>;
