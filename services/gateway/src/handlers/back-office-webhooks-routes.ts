import {
  DEFAULT_WEBHOOK_EVENTS,
  EVENTS_PAGE_MAX,
  isJsonObject,
  Rpc,
  SigningSecretRotate,
  WebhookEventKind,
  WebhookSettingsUpdate,
  WebhookType,
  type MerchantScope,
  type WebhookSettingsView,
} from '@dzpay/contracts';
import {
  AppError,
  apiUrlProblem,
  partnerUrl,
  requestRpc,
  sealSecret,
  signingSecretOwner,
} from '@dzpay/platform';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { WebhookSettingsRow } from '../adapters/accounts-repository.ts';
import type { GatewayDeps } from '../app.ts';
import {
  DEFAULT_GRACE_HOURS,
  newSigningSecret,
  rotateSigningSecret,
} from '../domain/signing-secret.ts';
import { authOf, requireApiKey } from './authenticate.ts';
import { ValidationFailure } from './errors.ts';

/**
 * The gateway's SECRETS_KEY (it seals the signing secrets it makes). Not part of
 * GatewayDeps yet: service.ts passes it along with the other deps.
 */
type WebhooksDeps = GatewayDeps & { secretsKey?: Buffer };

/**
 * The merchant API's webhook settings and events (issue 14), under the key's merchant
 * and mode. Settings live in the gateway's `partner_endpoints` (published to the partner
 * directory, so the dispatcher follows at once); events and test sends are the
 * dispatcher's.
 */
export function backOfficeWebhooksRoutes(app: FastifyInstance, deps: WebhooksDeps): void {
  const routeOptions = { preParsing: requireApiKey(app, deps.keys) };
  const ask = { timeoutMs: deps.serviceTimeoutMs };
  const clock = deps.clock ?? (() => new Date());

  function sealed(scope: MerchantScope, secret: string): Buffer {
    if (!deps.secretsKey) {
      throw new AppError(
        'SERVICE503_UNAVAILABLE',
        'webhook signing secrets cannot be stored here',
        {
          details: { reason: 'SECRETS_KEY not set on the gateway' },
        },
      );
    }
    return sealSecret(secret, deps.secretsKey, signingSecretOwner(scope.merchantId, scope.mode));
  }

  app.get('/api/v1/webhooks/settings', routeOptions, async (request) => {
    const { scope } = authOf(request);
    const row = await deps.accounts.webhookSettings(scope.merchantId, scope.mode);
    return { statusCode: 200, message: 'Webhook settings', data: settingsView(row, clock()) };
  });

  app.put('/api/v1/webhooks/settings', routeOptions, async (request) => {
    const { scope } = authOf(request);
    const patch = parse(WebhookSettingsUpdate, request.body);
    if (typeof patch.url === 'string') {
      const problem = apiUrlProblem(patch.url);
      if (problem) throw ValidationFailure.of([{ field: 'url', message: `url ${problem}` }]);
    }
    const secret = newSigningSecret();
    const { settings, secretCreated } = await deps.accounts.setWebhookSettings(
      scope.merchantId,
      scope.mode,
      patch,
      sealed(scope, secret),
    );
    return {
      statusCode: 200,
      message: secretCreated
        ? 'Webhook settings saved; the signing secret is shown this once'
        : 'Webhook settings saved',
      data: {
        ...settingsView(settings, clock()),
        ...(secretCreated ? { signingSecret: secret } : {}),
      },
    };
  });

  app.post('/api/v1/webhooks/signing-secret/rotate', routeOptions, async (request) => {
    const { scope } = authOf(request);
    const body = parse(SigningSecretRotate, request.body ?? {});
    const rotation = rotateSigningSecret(clock(), body.graceHours ?? DEFAULT_GRACE_HOURS);
    const current = await deps.accounts.webhookSettings(scope.merchantId, scope.mode);
    if (!current?.hasSigningSecret) throw endpointMissing();
    const found = await deps.accounts.setSigningSecret(
      scope.merchantId,
      scope.mode,
      sealed(scope, rotation.secret),
      rotation.previousValidUntil,
    );
    if (!found) throw endpointMissing();
    const after = await deps.accounts.webhookSettings(scope.merchantId, scope.mode);
    return {
      statusCode: 200,
      message: 'Signing secret rotated; the new one is shown this once',
      data: {
        signingSecret: rotation.secret,
        signingSecretCreatedAt: (after?.signingSecretCreatedAt ?? clock()).toISOString(),
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
    const row = await deps.accounts.webhookSettings(scope.merchantId, scope.mode);
    if (row === null || effectiveUrl(row) === null) throw endpointMissing();
    const data = await requestRpc(
      deps.nats,
      deps.natsPrefix,
      Rpc.webhookTestSend,
      // The dispatcher reads the directory until it holds these settings (just changed?).
      { ...scope, minVersion: row.version },
      // It waits for the partner: up to the webhook timeout, past the usual service time.
      { timeoutMs: Math.max(deps.serviceTimeoutMs, TEST_SEND_TIMEOUT_MS) },
    );
    return {
      statusCode: 200,
      message: data.ok ? 'Test event delivered' : 'Test event not acknowledged',
      data,
    };
  });

  app.get('/api/v1/events', routeOptions, async (request) => {
    const { scope } = authOf(request);
    const query = parse(EventsQuery, request.query);
    const data = await requestRpc(
      deps.nats,
      deps.natsPrefix,
      Rpc.webhookEventsList,
      { ...scope, ...query, limit: query.limit ?? DEFAULT_PAGE },
      ask,
    );
    return { statusCode: 200, message: 'Events', data };
  });

  app.post<{ Params: { id: string } }>(
    '/api/v1/events/:id/replay',
    routeOptions,
    async (request) => {
      const { scope } = authOf(request);
      const data = await requestRpc(
        deps.nats,
        deps.natsPrefix,
        Rpc.webhookEventReplay,
        { ...scope, eventId: request.params.id },
        ask,
      );
      return { statusCode: 200, message: 'Event scheduled for delivery again', data };
    },
  );
}

/** A test send waits for one attempt (WEBHOOK_TIMEOUT_MS, 15 s by default) and a little more. */
const TEST_SEND_TIMEOUT_MS = 20_000;
const DEFAULT_PAGE = 20;

const EventsQuery = z.strictObject({
  limit: z.coerce
    .number()
    .int('limit must be a whole number')
    .min(1, 'limit must be at least 1')
    .max(EVENTS_PAGE_MAX, `limit must be at most ${EVENTS_PAGE_MAX}`)
    .optional(),
  cursor: z.string().min(1).max(200).optional(),
  type: WebhookType.optional(),
  paymentId: z.uuid('paymentId must be a UUID').optional(),
});

function endpointMissing(): AppError {
  return new AppError(
    'WEBHOOK409_ENDPOINT_MISSING',
    'no webhook endpoint: set a URL with PUT /api/v1/webhooks/settings first',
  );
}

/** Where webhooks go: the chosen URL, else `{API_URL}/webhooks/platform`, else nowhere. */
function effectiveUrl(row: WebhookSettingsRow): string | null {
  if (row.webhookUrl) return row.webhookUrl;
  return row.apiUrl ? partnerUrl(row.apiUrl, 'webhooks', 'platform').href : null;
}

function settingsView(row: WebhookSettingsRow | null, now: Date): WebhookSettingsView {
  const events = (row?.webhookEvents ?? DEFAULT_WEBHOOK_EVENTS).filter(
    (kind): kind is WebhookEventKind => WebhookEventKind.safeParse(kind).success,
  );
  if (row === null) return { url: null, events };
  const graceLeft = row.previousValidUntil !== null && row.previousValidUntil > now;
  return {
    url: effectiveUrl(row),
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
