import { z } from 'zod';
import { rpc } from '../rpc-definition.ts';
import { MerchantScope } from '../scope.ts';
import { WebhookEventKind, WebhookType } from '../webhooks.ts';

/**
 * The back office's webhooks messages (issue 14): HTTP bodies and answers, and the NATS
 * request/reply operations behind them.
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

/** A delivery of an event, as the events list summarizes it. */
export const EventDeliverySummary = z.object({
  id: z.uuid(),
  status: z.enum(['pending', 'success', 'fail']),
  attempts: z.int().nonnegative(),
  lastStatusCode: z.int().nullable(),
});

/** One event dzpay took in for the merchant (`GET /api/v1/events`). */
export const WebhookEventView = z.object({
  id: z.uuid(),
  type: WebhookType,
  createdAt: z.iso.datetime(),
  paymentId: z.uuid().nullable(),
  /** The webhook body's `data`, as sent (or as it would be sent). */
  data: z.record(z.string(), z.unknown()),
  delivery: EventDeliverySummary.nullable(),
});
export type WebhookEventView = z.infer<typeof WebhookEventView>;

export const EVENTS_PAGE_MAX = 100;

export const WebhookEventsListRequest = MerchantScope.extend({
  limit: z.int().min(1).max(EVENTS_PAGE_MAX),
  cursor: z.string().optional(),
  type: WebhookType.optional(),
  paymentId: z.uuid().optional(),
});
export const WebhookEventsPage = z.object({
  events: z.array(WebhookEventView),
  /** Give it as `cursor` for the next (older) page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type WebhookEventsPage = z.infer<typeof WebhookEventsPage>;

export const WebhookEventReplayRequest = MerchantScope.extend({ eventId: z.string() });

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

// The subjects are not under `webhooks.events.`: the WEBHOOKS stream captures
// `webhooks.events.>`, and it would store these requests and answer them with its PubAck.
export const BackOfficeWebhooksRpc = {
  webhookEventsList: rpc('webhooks.log.list', WebhookEventsListRequest, WebhookEventsPage),
  webhookEventReplay: rpc('webhooks.log.replay', WebhookEventReplayRequest, WebhookEventView),
  webhookTestSend: rpc('webhooks.test.send', WebhookTestSendRequest, WebhookTestResult),
} as const;

/** The success bodies of these routes (`{statusCode, message, data}`). */
const ok = <S extends z.ZodType>(data: S) =>
  z.object({ statusCode: z.literal(200), message: z.string(), data });
export const WebhookSettingsResponse = ok(WebhookSettingsView);
export const WebhookSettingsUpdatedResponse = ok(WebhookSettingsUpdated);
export const SigningSecretRotatedResponse = ok(SigningSecretRotated);
export const WebhookTestResponse = ok(WebhookTestResult);
export const WebhookEventsResponse = ok(WebhookEventsPage);
export const WebhookEventResponse = ok(WebhookEventView);
