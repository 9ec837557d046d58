import {
  Rpc,
  DEFAULT_WEBHOOK_EVENTS,
  isJsonObject,
  SigningSecretRotate,
  WebhookEventKind,
  WebhookEventsQuery,
  WebhookSettingsUpdate,
  type WebhookSettingsView,
} from '@dzpay/contracts';
import { type NatsConnection, apiUrlProblem } from '@dzpay/platform';
import type { FastifyInstance } from 'fastify';
import type { KeyOwnerLookup } from '../../adapters/key-owner-cache.ts';
import { authOf, requireApiKey } from '../shared/authenticate.ts';
import { scopedAsk } from '../shared/scoped-ask.ts';
import type { z } from 'zod';
import {
  type WebhookSettingsRow,
  DEFAULT_GRACE_HOURS,
  effectiveWebhookUrl,
  webhookSettings,
} from '@dzpay/accounts';
import type { GatewayDeps } from '../../deps.ts';
import { ValidationFailure } from '../shared/errors.ts';
import { markUnchanged } from '../shared/answered-again.ts';

export interface WebhookRoutesDeps {
  keys: KeyOwnerLookup;
  nats: NatsConnection;
  natsPrefix: string;
  serviceTimeoutMs: number;
}

/** What merchants see of the webhooks dzpay sent their partner server, and a replay. */
export function webhookRoutes(app: FastifyInstance, deps: WebhookRoutesDeps): void {
  const routeOptions = { preParsing: requireApiKey(app, deps.keys) };
  const ask = scopedAsk(deps, deps.serviceTimeoutMs);

  app.get<{ Params: { id: string } }>(
    '/api/v1/payments/:id/webhooks',
    routeOptions,
    async (request) => {
      const data = await ask(request, Rpc.deliveriesOfPayment, { paymentId: request.params.id });
      return { statusCode: 200, message: 'Webhook deliveries', data };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/api/v1/webhooks/deliveries/:id/replay',
    routeOptions,
    async (request) => {
      const data = await ask(request, Rpc.deliveryReplay, { deliveryId: request.params.id });
      return { statusCode: 200, message: 'Webhook delivery scheduled again', data };
    },
  );
}

/**
 * The merchant API's webhook settings and events, under the key's merchant
 * and mode. Settings live in the gateway's `partner_endpoints` (published to the partner
 * directory, so the dispatcher follows at once); events and test sends are the
 * dispatcher's.
 */
export function webhookSettingsRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const routeOptions = { preParsing: requireApiKey(app, deps.keys) };
  const ask = scopedAsk(deps, deps.serviceTimeoutMs);
  const clock = deps.clock ?? (() => new Date());

  const settings = webhookSettings(deps);

  app.get('/api/v1/webhooks/settings', routeOptions, async (request) => {
    const { scope } = authOf(request);
    const row = await settings.read(scope);
    return { statusCode: 200, message: 'Webhook settings', data: settingsView(row, clock()) };
  });

  app.put('/api/v1/webhooks/settings', routeOptions, async (request) => {
    const { scope } = authOf(request);
    const patch = parse(WebhookSettingsUpdate, request.body);
    if (typeof patch.url === 'string') {
      const problem = apiUrlProblem(patch.url);
      if (problem) throw ValidationFailure.of([{ field: 'url', message: `url ${problem}` }]);
    }
    const saved = await settings.save(scope, patch);
    markUnchanged(request, saved.unchanged);
    return {
      statusCode: 200,
      message: saved.signingSecret
        ? 'Webhook settings saved; the signing secret is shown this once'
        : 'Webhook settings saved',
      data: {
        ...settingsView(saved.settings, clock()),
        ...(saved.signingSecret ? { signingSecret: saved.signingSecret } : {}),
      },
    };
  });

  app.post('/api/v1/webhooks/signing-secret/rotate', routeOptions, async (request) => {
    const { scope } = authOf(request);
    const body = parse(SigningSecretRotate, request.body ?? {});
    const rotation = await settings.rotate(scope, body.graceHours ?? DEFAULT_GRACE_HOURS);
    return {
      statusCode: 200,
      message: 'Signing secret rotated; the new one is shown this once',
      data: {
        signingSecret: rotation.signingSecret,
        signingSecretCreatedAt: rotation.createdAt.toISOString(),
        ...(rotation.previousValidUntil
          ? { previousSecretValidUntil: rotation.previousValidUntil.toISOString() }
          : {}),
      },
    };
  });

  app.post('/api/v1/webhooks/test', routeOptions, async (request) => {
    const { scope } = authOf(request);
    if (request.body !== undefined && request.body !== null && !isJsonObject(request.body)) {
      throw ValidationFailure.of([
        { field: 'body', message: 'request body must be a JSON object' },
      ]);
    }
    const data = await settings.sendTest(scope);
    return {
      statusCode: 200,
      message: data.ok ? 'Test event delivered' : 'Test event not acknowledged',
      data,
    };
  });

  app.get('/api/v1/events', routeOptions, async (request) => {
    const query = parse(WebhookEventsQuery, request.query);
    const data = await ask(request, Rpc.webhookEventsList, {
      ...query,
      limit: query.limit ?? DEFAULT_PAGE,
    });
    return { statusCode: 200, message: 'Events', data };
  });

  app.post<{ Params: { id: string } }>(
    '/api/v1/events/:id/replay',
    routeOptions,
    async (request) => {
      const data = await ask(request, Rpc.webhookEventReplay, { eventId: request.params.id });
      return { statusCode: 200, message: 'Event scheduled for delivery again', data };
    },
  );
}

const DEFAULT_PAGE = 20;

function settingsView(row: WebhookSettingsRow | null, now: Date): WebhookSettingsView {
  const events = (row?.webhookEvents ?? DEFAULT_WEBHOOK_EVENTS).filter(
    (kind): kind is WebhookEventKind => WebhookEventKind.safeParse(kind).success,
  );
  if (row === null) return { url: null, events };
  const graceLeft = row.previousValidUntil !== null && row.previousValidUntil > now;
  return {
    url: effectiveWebhookUrl(row),
    events,
    ...(row.signingSecretCreatedAt
      ? { signingSecretCreatedAt: row.signingSecretCreatedAt.toISOString() }
      : {}),
    ...(graceLeft ? { previousSecretValidUntil: row.previousValidUntil!.toISOString() } : {}),
  };
}

/** A body or query checked against its schema: 400 naming each field that failed. */
function parse<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  if (!isJsonObject(input ?? {})) {
    throw ValidationFailure.of([{ field: 'body', message: 'request body must be a JSON object' }]);
  }
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  throw ValidationFailure.of(
    parsed.error.issues.map((issue) => {
      if (issue.code === 'unrecognized_keys') {
        return {
          field: issue.keys.join(', '),
          message: `property ${issue.keys.join(', ')} should not exist`,
        };
      }
      const field = issue.path.map(String).join('.') || 'body';
      const message = issue.message.startsWith(field)
        ? issue.message
        : `${field}: ${issue.message}`;
      return { field, message };
    }),
  );
}
