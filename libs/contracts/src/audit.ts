// The audit log as the API answers it: who refunded, cancelled, issued a key, changed
// the webhooks or the team (`GET /api/v1/audit-events`). Written by the edge that knew
// who acted (libs/accounts/src/audit-log.ts); read here, newest first.
import { z } from 'zod';
import { pageLimit } from './page-query.ts';
import { Mode } from './scope.ts';

/**
 * The actions the log records. Dotted names, the resource first, so a filter on a family
 * (`payment`) finds every action of it.
 */
export const AuditActions = [
  'payment.refund',
  'payment.cancel',
  'api_key.issue',
  'api_key.revoke',
  'webhook.settings_update',
  'webhook.secret_rotate',
  'payout.record',
  'payment_link.create',
  'payment_link.deactivate',
  'team.invite',
  'team.invite_revoke',
  'team.role_change',
  'team.user_disable',
  'team.user_enable',
  'team.password_reset',
] as const;
export const AuditAction = z.enum(AuditActions);
export type AuditAction = z.infer<typeof AuditAction>;

/** The families a log is filtered by: each action's first part. */
export const AuditFamilies = [
  'payment',
  'api_key',
  'webhook',
  'payout',
  'payment_link',
  'team',
] as const;
export const AuditFamily = z.enum(AuditFamilies);
export type AuditFamily = z.infer<typeof AuditFamily>;

/** Most events one page of `GET /api/v1/audit-events` holds; the default is 20. */
export const AUDIT_PAGE_MAX = 100;
export const AUDIT_PAGE_DEFAULT = 20;

/** `GET /api/v1/audit-events`: a page size, the previous page's cursor, an action filter. */
export const AuditEventsQuery = z.strictObject({
  limit: pageLimit(AUDIT_PAGE_MAX),
  cursor: z
    .string({ error: 'cursor must be a string' })
    .regex(/^[A-Za-z0-9_-]{1,200}$/, { error: 'cursor is not one this API gave' })
    .optional(),
  action: z
    .union([AuditAction, AuditFamily], {
      error: `action must be one of ${[...AuditFamilies, ...AuditActions].join(', ')}`,
    })
    .optional(),
});
export type AuditEventsQuery = z.input<typeof AuditEventsQuery>;

/** Who acted: a dashboard user (their email), an API key (its prefix), an operator. */
export const AuditActorView = z.object({
  kind: z.enum(['user', 'api_key', 'operator']),
  /** The user's id, the key's id, the operator's name. */
  id: z.string(),
  /** How it reads to a person: the user's email, the key's prefix, the operator's name. */
  label: z.string(),
});

/** One recorded action. */
export const AuditEventView = z.object({
  id: z.uuid(),
  at: z.iso.datetime(),
  /** The mode acted in; null for team changes, which are of no mode. */
  mode: Mode.nullable(),
  actor: AuditActorView,
  action: AuditAction,
  /** What was acted on: a payment id, a key prefix, an email, a webhook URL. */
  target: z.string().nullable(),
  /** Amounts in integer centimes, roles, labels; never a secret. */
  details: z.record(z.string(), z.unknown()),
});
export type AuditEventView = z.infer<typeof AuditEventView>;

export const AuditEventsPage = z.object({
  events: z.array(AuditEventView),
  /** Give it as `cursor` for the next (older) page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type AuditEventsPage = z.infer<typeof AuditEventsPage>;

/** 200 of GET /api/v1/audit-events. */
export const AuditEventsResponse = z.object({
  statusCode: z.literal(200),
  message: z.string(),
  data: AuditEventsPage,
});
export type AuditEventsResponse = z.infer<typeof AuditEventsResponse>;
