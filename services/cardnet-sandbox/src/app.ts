import { randomInt, randomUUID } from 'node:crypto';
import { httpLimitOptions, type HttpLimits } from '@dzpay/platform';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { callCounter } from './call-stats.ts';
import { faultInjector } from './fault-injector.ts';
import { controlRoutes } from './handlers/control-routes.ts';
import { faultHooks } from './handlers/fault-hooks.ts';
import { credentialsBook } from './credentials.ts';
import { referenceNumberOf } from './domain/reference-number.ts';
import { acceptForms } from './handlers/rest-params.ts';
import { formRoutes } from './handlers/form-routes.ts';
import { restRoutes } from './handlers/rest-routes.ts';
import { orderBook } from './order-book.ts';
import { RouteLogController } from './request-log.ts';

export interface SandboxDeps {
  logger: FastifyBaseLogger;
  credentials: { userName: string; password: string };
  confirmDelayMs: number;
  publicUrl: () => string;
  clock: () => Date;
  stopping: AbortSignal;
  /** SANDBOX_CONTROL: the control API for tests (faults, credentials, ledger, stats). */
  control: boolean;
  /** SANDBOX_STATUS_REFUNDS: getOrderStatusExtended lists each refund. */
  statusRefunds: boolean;
  /** SANDBOX_TIME_ZONE: the zone of the merchant's wall-clock dates. */
  timeZone: string;
  /** How long requests may take to arrive: the platform's HTTP_LIMITS unless a test says. */
  httpLimits?: HttpLimits;
}

/** Forms and REST calls are small; anything larger is not a SATIM call. */
const BODY_LIMIT_BYTES = 16 * 1024;

/** The sandbox's HTTP application, built without listening. */
export function buildSandboxApp(deps: SandboxDeps): FastifyInstance {
  const app = Fastify({
    loggerInstance: deps.logger,
    bodyLimit: BODY_LIMIT_BYTES,
    logController: new RouteLogController(),
    // A call whose headers or body stall is dropped (408) at the limits of every dzpay
    // server, so it holds neither a connection nor the sandbox's shutdown.
    ...httpLimitOptions(deps.httpLimits),
  });
  acceptForms(app);

  const book = orderBook();
  const credentials = credentialsBook(deps.credentials);
  if (deps.control) {
    const injector = faultInjector(deps.stopping);
    const counter = callCounter();
    // The hooks first: they wrap the routes registered after them.
    faultHooks(app, {
      book,
      clock: deps.clock,
      logger: deps.logger,
      injector,
      counter,
      stopping: deps.stopping,
    });
    controlRoutes(app, { book, clock: deps.clock, injector, counter, credentials });
  }
  let refunds = 0;
  restRoutes(app, {
    book,
    clock: deps.clock,
    logger: deps.logger,
    credentials,
    newOrderId: randomUUID,
    newRefundReceipt: (now) => ({
      referenceNumber: referenceNumberOf((refunds += 1), now),
      approvalCode: String(randomInt(0, 1_000_000)).padStart(6, '0'),
    }),
    publicUrl: deps.publicUrl,
    confirmDelayMs: deps.confirmDelayMs,
    stopping: deps.stopping,
    statusVersion: { refunds: deps.statusRefunds },
    merchantLogin: deps.credentials.userName,
    timeZone: deps.timeZone,
  });
  formRoutes(app, { book, clock: deps.clock, logger: deps.logger });
  app.get('/healthz', () => ({ status: 'ok' }));
  return app;
}
