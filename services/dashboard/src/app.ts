import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import { httpStatusOf } from '@dzpay/contracts';
import {
  httpLimitOptions,
  isAppError,
  observeHttpRequests,
  urlFreeLogController,
  type HttpLimits,
} from '@dzpay/platform';
import type { Registry } from 'prom-client';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { apiKeyPages } from './pages/api-key-pages.ts';
import { auditPages } from './pages/audit-pages.ts';
import { authPages } from './pages/auth-pages.ts';
import { createPageKit } from './kit.ts';
import { SECURITY_HEADERS } from './layout.ts';
import { chooseLanguage } from './language.ts';
import { textsOf } from './messages.ts';
import { DashboardPaths } from './navigation.ts';
import { registerDataPages } from './pages/index.ts';
import { passwordResetPages } from './pages/password-reset-pages.ts';
import { problem } from './problem-pages.ts';
import { DashboardUnavailable, sessionOfRequest } from './session-guard.ts';
import { sessionPages } from './session-pages.ts';
import { DASHBOARD_CSS } from './stylesheet.ts';
import { teamPages } from './pages/team-pages.ts';
import type { DashboardDeps } from './settings.ts';
import { webhookDeliveriesPages } from './pages/webhook-deliveries-pages.ts';
import { webhookPages } from './pages/webhook-pages.ts';

/** Form bodies are small: a few fields. */
const FORM_BODY_LIMIT_BYTES = 16 * 1024;

/** How the dashboard's HTTP server runs: where its log goes, which proxies it trusts. */
export interface DashboardServer {
  logger: FastifyBaseLogger;
  /** Where request durations are counted (the ops port's /metrics). */
  registry: Registry;
  /** Trust X-Forwarded-For from this many proxies (the ingress) when reading client IPs. */
  trustProxyHops: number;
  /** How long requests may take to arrive: the platform's HTTP_LIMITS unless a test says. */
  httpLimits?: HttpLimits;
}

/**
 * The merchants' dashboard under /dashboard: server-rendered pages, sessions in Redis,
 * forms with CSRF tokens. Built without listening, so tests can inject requests.
 */
export async function buildDashboardApp(
  server: DashboardServer,
  deps: DashboardDeps,
): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: server.logger,
    trustProxy: (_address: string, hop: number) => hop < server.trustProxyHops,
    return503OnClosing: true,
    // Invitation and password reset links carry their token in the URL: requests are
    // logged by route pattern (observeHttpRequests), never by URL.
    logController: urlFreeLogController(),
    // A request whose headers or body stall is dropped (408) at the platform's limits.
    ...httpLimitOptions(server.httpLimits),
  });
  observeHttpRequests(
    app,
    server.registry,
    (request) => sessionOfRequest(request)?.record.merchantId,
  );
  app.get('/favicon.ico', (_request, reply) => reply.code(204).send());
  await dashboardRoutes(app, deps);
  return app;
}

/**
 * Every page in one encapsulated plugin under /dashboard: its cookie and form parsers,
 * error pages and security headers apply to its routes alone.
 */
async function dashboardRoutes(app: FastifyInstance, dash: DashboardDeps): Promise<void> {
  await app.register(
    async (scope) => {
      await scope.register(cookie);
      await scope.register(formbody, { bodyLimit: FORM_BODY_LIMIT_BYTES });
      scope.addHook('onRequest', async (_request, reply) => {
        void reply.headers(SECURITY_HEADERS);
      });
      scope.setErrorHandler((error: FastifyError, request, reply) =>
        dashboardError(error, request, reply),
      );
      scope.setNotFoundHandler((request, reply) => notFound(request, reply));

      scope.get('/assets/dashboard.css', async (_request, reply) =>
        reply
          .type('text/css; charset=utf-8')
          .header('cache-control', 'public, max-age=3600')
          .send(DASHBOARD_CSS),
      );

      const kit = createPageKit(scope, dash);
      authPages(scope, dash);
      passwordResetPages(scope, dash);
      sessionPages(kit, dash);
      teamPages(kit, dash);
      apiKeyPages(kit, dash);
      // Its /webhooks/deliveries before the webhooks pages' own /webhooks/* routes.
      webhookDeliveriesPages(kit, dash);
      webhookPages(kit, dash);
      auditPages(kit, dash);
      registerDataPages(kit);
      // The home page is the payments list, unless the data pages claimed it.
      if (
        !scope.hasRoute({ method: 'GET', url: '/dashboard' }) &&
        !scope.hasRoute({ method: 'GET', url: '/dashboard/' })
      ) {
        kit.get('/', async ({ reply }) => {
          await reply.redirect(DashboardPaths.payments, 303);
        });
      }
    },
    { prefix: DashboardPaths.home },
  );
}

function languageOf(request: FastifyRequest) {
  const found = sessionOfRequest(request);
  return found
    ? found.record.language
    : chooseLanguage(
        (request.query as { lang?: unknown } | undefined)?.lang,
        request.headers['accept-language'],
      );
}

function notFound(request: FastifyRequest, reply: FastifyReply) {
  return problem(request, reply, 404, textsOf(languageOf(request)).notFoundText);
}

/** Every failure of a dashboard route becomes a page in the user's language. */
function dashboardError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const t = textsOf(languageOf(request));
  if (error instanceof DashboardUnavailable) {
    request.log.warn({ err: error.cause }, 'dashboard storage unavailable');
    return problem(request, reply, 503, t.serviceUnavailable);
  }
  if (isAppError(error)) {
    const status = httpStatusOf(error.code);
    if (status === 404) return notFound(request, reply);
    if (status >= 500) {
      request.log.warn({ err: error }, 'dependency failed');
      return problem(request, reply, 503, t.serviceUnavailable);
    }
    return problem(request, reply, status, error.message);
  }
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status === 404 || status === 403) return notFound(request, reply);
  if (status === 429) return problem(request, reply, 429, t.tooManyRequests);
  if (status >= 400 && status < 500) return problem(request, reply, 400, t.badRequest);
  request.log.error({ err: error }, 'unhandled dashboard error');
  return problem(request, reply, 500, t.serviceUnavailable);
}
