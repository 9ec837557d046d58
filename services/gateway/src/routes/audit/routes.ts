import {
  AUDIT_PAGE_DEFAULT,
  AuditActions,
  AuditEventsQuery,
  type AuditAction,
  type AuditEventView,
} from '@dzpay/contracts';
import type { AuditEvent, AuditEventInput } from '@dzpay/accounts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayDeps } from '../../deps.ts';
import { authOf, requireApiKey } from '../shared/authenticate.ts';
import { ValidationFailure } from '../shared/errors.ts';
import { parseQuery } from '../shared/query-string.ts';
import { wasAnsweredAgain } from '../shared/answered-again.ts';

/**
 * The merchant API's routes whose success the audit log records, by method and route
 * pattern: what was done, on what, and what of the answer is worth keeping. Recorded
 * from hooks, so the routes' own files stay about their work.
 */
interface AuditedRoute {
  action: AuditAction;
  target: (request: FastifyRequest, answer: unknown) => string | undefined;
  details: (request: FastifyRequest, answer: unknown) => Record<string, unknown>;
}

type Json = Record<string, unknown>;
const objectOf = (value: unknown): Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
const paramId = (request: FastifyRequest) => objectOf(request.params).id as string | undefined;

/** A URL as the log keeps it: origin and path (no credentials, no query tokens). */
function safeUrlOf(url: unknown): string | null {
  if (typeof url !== 'string' || !url) return null;
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return null;
  }
}

/** A payment link made or ended: the link the answer names, and its label. */
const paymentLinkAction = (action: AuditAction): AuditedRoute => ({
  action,
  target: (_request, answer) => objectOf(objectOf(answer).data).id as string | undefined,
  details: (_request, answer) => ({ label: objectOf(objectOf(answer).data).label ?? null }),
});

const AUDITED_ROUTES: Readonly<Record<string, AuditedRoute>> = {
  'POST /api/v1/payment-links': paymentLinkAction('payment_link.create'),
  'POST /api/v1/payment-links/:id/deactivate': paymentLinkAction('payment_link.deactivate'),
  'POST /api/v1/payments/:id/refund': {
    action: 'payment.refund',
    target: paramId,
    details: (_request, answer) => {
      const data = objectOf(objectOf(answer).data);
      const refund = objectOf(data.refund);
      return { amount: refund.amount, refundStatus: refund.status, paymentStatus: data.status };
    },
  },
  'POST /api/v1/payments/:id/cancel': {
    action: 'payment.cancel',
    target: paramId,
    details: () => ({}),
  },
  'PUT /api/v1/webhooks/settings': {
    action: 'webhook.settings_update',
    target: (request) => safeUrlOf(objectOf(request.body).url) ?? undefined,
    details: (request, answer) => {
      const body = objectOf(request.body);
      return {
        changed: Object.keys(body).sort(),
        ...(Array.isArray(body.events) ? { events: body.events } : {}),
        // Never the secret itself: whether one was made.
        secretCreated: typeof objectOf(objectOf(answer).data).signingSecret === 'string',
      };
    },
  },
  'POST /api/v1/webhooks/signing-secret/rotate': {
    action: 'webhook.secret_rotate',
    target: () => undefined,
    details: (request) => {
      const grace = objectOf(request.body).graceHours;
      return typeof grace === 'number' ? { graceHours: grace } : {};
    },
  },
};

/** The audited route a request took, if any (by its route pattern, never its raw URL). */
function auditedRouteOf(request: FastifyRequest): AuditedRoute | undefined {
  const url = request.routeOptions.url;
  return url ? AUDITED_ROUTES[`${request.method} ${url}`] : undefined;
}

/** The key's prefix, as the dashboard shows it (pk_test_AbCd…): never the key. */
function keyLabelOf(request: FastifyRequest): string {
  const values = request.raw.headersDistinct['x-api-key'];
  const key = values?.length === 1 ? values[0]!.trim() : '';
  return key ? `${key.slice(0, 12)}…` : 'API key';
}

/** A route-level hook added to what the route already had (one, many or none). */
function withHook<H>(existing: H | H[] | undefined, hook: H): H[] {
  if (existing === undefined) return [hook];
  return Array.isArray(existing) ? [...existing, hook] : [existing, hook];
}

/**
 * Records, after the answer, every refund, cancel and webhook settings change made with
 * an API key. Registered before the other routes (app.ts): as each audited route is
 * added, its own onSend and onResponse hooks are, so no other request (status reads on
 * the hot path) runs them. onSend reads what the answer said (the refund's amount);
 * onResponse writes the event once the merchant has the answer: the action is done
 * whatever this write does, and a failure is logged, never turned into an error for an
 * action that succeeded.
 */
function recordApiActions(app: FastifyInstance, deps: GatewayDeps): void {
  const pending = new WeakMap<FastifyRequest, AuditEventInput>();

  const onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const route = auditedRouteOf(request);
    const status = reply.statusCode;
    if (!route || !request.auth || status < 200 || status >= 300) return payload;
    // A replay, or a write with nothing to do, answers what was done before: nothing new.
    if (wasAnsweredAgain(request)) return payload;
    let answer: unknown = null;
    if (typeof payload === 'string') {
      try {
        answer = JSON.parse(payload);
      } catch {
        answer = null;
      }
    }
    const target = route.target(request, answer);
    pending.set(request, {
      merchantId: request.auth.scope.merchantId,
      mode: request.auth.scope.mode,
      actor: { kind: 'api_key', id: request.auth.keyId, label: keyLabelOf(request) },
      action: route.action,
      ...(target ? { target } : {}),
      details: route.details(request, answer),
    });
    return payload;
  };

  const onResponse = async (request: FastifyRequest) => {
    const event = pending.get(request);
    if (!event) return;
    pending.delete(request);
    try {
      await deps.accounts.recordAudit(event);
    } catch (error) {
      request.log.error(
        { err: error, action: event.action, merchantId: event.merchantId },
        'audit event not recorded',
      );
    }
  };

  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((method) => AUDITED_ROUTES[`${method} ${route.url}`])) return;
    route.onSend = withHook(route.onSend, onSend);
    route.onResponse = withHook(route.onResponse, onResponse);
  });
}

/** An event as the API shows it. */
function eventView(event: AuditEvent): AuditEventView {
  return {
    id: event.id,
    at: event.at.toISOString(),
    mode: event.mode,
    actor: event.actor,
    action: event.action,
    target: event.target,
    details: event.details,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The cursor is the last event's id, opaque to the caller. */
const cursorOf = (id: string) => Buffer.from(id, 'utf8').toString('base64url');
function idOfCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!UUID.test(id)) {
    throw ValidationFailure.of([{ field: 'cursor', message: 'cursor is not one this API gave' }]);
  }
  return id;
}

/**
 * The merchant API's audit log (/api/v1/audit-events), and the hooks that write the API's
 * own actions to it. A key reads its own mode's events; team changes (of no mode) are the
 * real account's business, read with a live key only.
 */
export function auditRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  recordApiActions(app, deps);
  const routeOptions = { preParsing: requireApiKey(app, deps.keys) };

  app.get('/api/v1/audit-events', routeOptions, async (request) => {
    const { scope } = authOf(request);
    const query = parseQuery(AuditEventsQuery, request.query);
    const limit = query.limit ?? AUDIT_PAGE_DEFAULT;
    const exact = (AuditActions as readonly string[]).includes(query.action ?? '');
    const rows = await deps.accounts.auditPage({
      merchantId: scope.merchantId,
      mode: scope.mode,
      modeless: scope.mode === 'live',
      limit: limit + 1,
      ...(query.action ? { actionPrefix: exact ? query.action : `${query.action}.` } : {}),
      ...(query.cursor ? { after: { id: idOfCursor(query.cursor) } } : {}),
    });
    const events = rows.slice(0, limit);
    const last = events.at(-1);
    return {
      statusCode: 200,
      message: 'Audit events',
      data: {
        events: events.map(eventView),
        nextCursor: rows.length > limit && last ? cursorOf(last.id) : null,
      },
    };
  });
}
