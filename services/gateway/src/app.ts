import rateLimit from '@fastify/rate-limit';
import type { NatsConnection, Redis } from '@dzpay/platform';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { Histogram, type Registry } from 'prom-client';
import type { AccountsRepository } from './adapters/accounts-repository.ts';
import type { KeyOwnerLookup } from './adapters/key-owner-cache.ts';
import type { StatusLookup } from './adapters/status-cache.ts';
import { degradableStore } from './adapters/rate-limit-store.ts';
import { hashApiKey, modeOfApiKey } from './domain/api-key.ts';
import { clientErrorHandler, frameworkErrors, installErrorHandling } from './handlers/errors.ts';
import { agencyRoutes } from './handlers/agency-routes.ts';
import { backOfficePaymentsRoutes } from './handlers/back-office-payments-routes.ts';
import { backOfficeQrRoutes } from './handlers/back-office-qr-routes.ts';
import { backOfficeReportRoutes } from './handlers/back-office-report-routes.ts';
import { backOfficeWebhooksRoutes } from './handlers/back-office-webhooks-routes.ts';
import { dashboardRoutes } from './dashboard/dashboard-routes.ts';
import type { DashboardDeps } from './dashboard/settings.ts';
import { checkoutRoutes } from './handlers/checkout-routes.ts';
import { docsRoutes } from './handlers/docs-routes.ts';
import { paymentsRoutes } from './handlers/payments-routes.ts';
import { receiptRoutes } from './handlers/receipt-routes.ts';
import { qrRoutes } from './handlers/qr-routes.ts';
import { traceRequests } from './handlers/request-tracing.ts';
import { drainUnreadBodies } from './handlers/unread-bodies.ts';
import { statusRoutes } from './handlers/status-routes.ts';
import { webhookRoutes } from './handlers/webhook-routes.ts';

export interface GatewayDeps {
  logger: FastifyBaseLogger;
  keys: KeyOwnerLookup;
  accounts: AccountsRepository;
  /** Status records remembered between changes; without it, every query asks status. */
  statuses?: StatusLookup;
  nats: NatsConnection;
  natsPrefix: string;
  redis: Redis;
  registry: Registry;
  rateLimitPerMinute: number;
  serviceTimeoutMs: number;
  paymentsTimeoutMs: number;
  receiptsTimeoutMs: number;
  publicBaseUrl: string;
  statusRateLimitPerMinute: number;
  /** Gateway replicas sharing the rate limits: each counts its share while Redis is down. */
  replicas: number;
  trustProxyHops: number;
  /**
   * SECRETS_KEY: seals the webhook signing secrets the merchant API and the dashboard
   * make. Absent: neither can make one (503).
   */
  secretsKey?: Buffer;
  /** The dashboard's own dependencies; apps built without them serve no dashboard. */
  dashboard?: DashboardDeps;
  clock?: () => Date;
}

/** Every route each app serves (method and URL pattern), as registered. */
const routesByApp = new WeakMap<FastifyInstance, { method: string; url: string }[]>();

/** The routes an app built by buildGatewayApp serves: checked against the OpenAPI document. */
export function servedRoutes(app: FastifyInstance): readonly { method: string; url: string }[] {
  return routesByApp.get(app) ?? [];
}

/** Request bodies of the public API are small; anything larger is refused early. */
const BODY_LIMIT_BYTES = 64 * 1024;
const REQUEST_TIMEOUT_MS = 30_000;
/** How much of a body no route reads (a GET's) is read and dropped before answering. */
const UNREAD_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * The public HTTP application, built without listening so tests can inject requests
 * and the service can listen where its config says.
 */
export async function buildGatewayApp(deps: GatewayDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger,
    bodyLimit: BODY_LIMIT_BYTES,
    // Count only the hops of our own ingress when reading the client address.
    trustProxy: (_address: string, hop: number) => hop < deps.trustProxyHops,
    return503OnClosing: true,
    // Fastify's own request lines carry the raw URL, and checkout URLs carry the payer's
    // token: requests are logged below by route pattern instead.
    logController: new LogController({ disableRequestLogging: true }),
    // Status references may be 255 characters (URL-encoded, longer): let the router pass
    // them to the handler, which answers the spec's 400 past 255.
    routerOptions: { maxParamLength: 2048 },
    // What fails before a route runs (a request Node cannot parse, a broken
    // percent-encoding, an overlong parameter) still gets the spec's envelope.
    clientErrorHandler,
    frameworkErrors,
    // A request whose body never finishes arriving is dropped after this long, so it can
    // hold neither a connection nor a graceful shutdown for as long as its sender likes.
    requestTimeout: REQUEST_TIMEOUT_MS,
  });
  // The API speaks JSON only; without this, a text/plain body would reach the handlers
  // as a string and be judged field by field instead of by its content type.
  app.removeContentTypeParser('text/plain');
  const routes: { method: string; url: string }[] = [];
  routesByApp.set(app, routes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  installErrorHandling(app);
  drainUnreadBodies(app, UNREAD_BODY_LIMIT_BYTES);
  traceRequests(app);
  observeRequests(app, deps.registry);

  // Limits the spec leaves open: per key (per address without one), counted in Redis so
  // every gateway replica shares the count. Without Redis each replica counts its share
  // in memory (adapters/rate-limit-store.ts): the limits degrade, they never vanish.
  await app.register(rateLimit, {
    global: true,
    max: deps.rateLimitPerMinute,
    timeWindow: 60_000,
    store: degradableStore({
      redis: deps.redis,
      replicas: deps.replicas,
      nameSpace: 'rate:',
      logger: deps.logger,
    }),
    // A real key is counted on its own (the spec's limits are per key); anything else
    // (no key, a malformed, guessed or revoked one) on the caller's address, so inventing
    // keys does not buy fresh budgets. The lookup fills the owner cache authentication
    // then reads.
    keyGenerator: async (request) => {
      const key = request.headers['x-api-key'];
      const presented = typeof key === 'string' ? key.trim() : '';
      if (!modeOfApiKey(presented)) return `ip:${request.ip}`;
      const hash = hashApiKey(presented);
      const owner = await deps.keys.findKeyOwner(hash).catch(() => null);
      return owner ? `key:${hash.toString('base64url')}` : `ip:${request.ip}`;
    },
    errorResponseBuilder: (_request, context) => ({
      statusCode: 429,
      message: `Too many requests: at most ${context.max} per minute. Retry in ${context.after}.`,
    }),
  });

  // Browsers ask for it on every page; there is none, and that is not worth a 404 line.
  app.get('/favicon.ico', (_request, reply) => reply.code(204).send());
  qrRoutes(app, { ...deps, clock: deps.clock ?? (() => new Date()) });
  paymentsRoutes(app, deps);
  receiptRoutes(app, deps);
  statusRoutes(app, deps);
  webhookRoutes(app, deps);
  backOfficePaymentsRoutes(app, deps);
  backOfficeWebhooksRoutes(app, deps);
  backOfficeQrRoutes(app, deps);
  backOfficeReportRoutes(app, deps);
  await dashboardRoutes(app, deps);
  await checkoutRoutes(app, deps);
  await agencyRoutes(app, deps);
  await docsRoutes(app, deps.publicBaseUrl);
  return app;
}

function observeRequests(app: FastifyInstance, registry: Registry): void {
  const duration = new Histogram({
    name: 'dzpay_http_request_duration_seconds',
    help: 'Public HTTP requests by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    duration.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    request.log.info(
      {
        method: request.method,
        route,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
        ...(request.auth ? { merchantId: request.auth.scope.merchantId } : {}),
      },
      'request completed',
    );
  });
}
