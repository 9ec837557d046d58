import rateLimit from '@fastify/rate-limit';
import { httpLimitOptions, observeHttpRequests, urlFreeLogController } from '@dzpay/platform';
import Fastify, { type FastifyInstance } from 'fastify';
import { hashApiKey, modeOfApiKey } from '@dzpay/accounts';
import { degradableStore } from './adapters/rate-limit-store.ts';
import {
  clientErrorHandler,
  frameworkErrors,
  installErrorHandling,
} from './routes/shared/errors.ts';
import { agencyRoutes } from './routes/payer-pages/agency-routes.ts';
import { auditRoutes } from './routes/audit/routes.ts';
import { balanceRoutes } from './routes/balance/routes.ts';
import { paymentLinkRoutes } from './routes/payment-links/routes.ts';
import { qrCodesRoutes } from './routes/qr-codes/routes.ts';
import { reportRoutes } from './routes/reports/routes.ts';
import { checkoutRoutes } from './routes/payer-pages/checkout-routes.ts';
import { docsRoutes } from './routes/docs/routes.ts';
import { paymentsListRoutes, paymentsRoutes } from './routes/payments/routes.ts';
import { receiptRoutes } from './routes/payments/receipt-routes.ts';
import { qrConfigRoutes } from './routes/qr-config/routes.ts';
import { traceRequests } from './routes/shared/request-tracing.ts';
import { drainUnreadBodies } from './routes/shared/unread-bodies.ts';
import { statusRoutes } from './routes/status/routes.ts';
import { webhookDeliveriesRoutes } from './routes/webhooks/deliveries-routes.ts';
import { webhookRoutes, webhookSettingsRoutes } from './routes/webhooks/routes.ts';
import type { GatewayDeps } from './deps.ts';

/** Every route each app serves (method and URL pattern), as registered. */
const routesByApp = new WeakMap<FastifyInstance, { method: string; url: string }[]>();

/** The routes an app built by buildGatewayApp serves: checked against the OpenAPI document. */
export function servedRoutes(app: FastifyInstance): readonly { method: string; url: string }[] {
  return routesByApp.get(app) ?? [];
}

/** Request bodies of the public API are small; anything larger is refused early. */
const BODY_LIMIT_BYTES = 64 * 1024;
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
    logController: urlFreeLogController(),
    // Status references may be 255 characters (URL-encoded, longer): let the router pass
    // them to the handler, which answers the spec's 400 past 255.
    routerOptions: { maxParamLength: 2048 },
    // What fails before a route runs (a request Node cannot parse, a broken
    // percent-encoding, an overlong parameter) still gets the spec's envelope.
    clientErrorHandler,
    frameworkErrors,
    // A request whose headers or body never finish arriving is dropped at the platform's
    // limits (10 s, 30 s), so it holds neither a connection nor a graceful shutdown for
    // as long as its sender likes; clientErrorHandler answers it.
    ...httpLimitOptions(deps.httpLimits),
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
  observeHttpRequests(app, deps.registry, (request) => request.auth?.scope.merchantId);

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
  // First: its hooks record who refunded, cancelled or changed webhook settings on the
  // routes registered after it.
  auditRoutes(app, deps);
  qrConfigRoutes(app, { ...deps, clock: deps.clock ?? (() => new Date()) });
  paymentsRoutes(app, deps);
  receiptRoutes(app, deps);
  statusRoutes(app, deps);
  webhookRoutes(app, deps);
  paymentsListRoutes(app, deps);
  webhookSettingsRoutes(app, deps);
  qrCodesRoutes(app, deps);
  reportRoutes(app, deps);
  balanceRoutes(app, deps);
  webhookDeliveriesRoutes(app, deps);
  paymentLinkRoutes(app, deps);
  await checkoutRoutes(app, deps);
  await agencyRoutes(app, deps);
  await docsRoutes(app, deps.publicBaseUrl, {
    api: deps.rateLimitPerMinute,
    status: deps.statusRateLimitPerMinute,
  });
  return app;
}
