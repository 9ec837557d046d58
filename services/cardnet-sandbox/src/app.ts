import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { callCounter } from './call-stats.ts';
import { faultInjector } from './fault-injector.ts';
import { controlRoutes } from './handlers/control-routes.ts';
import { faultHooks } from './handlers/fault-hooks.ts';
import { credentialsChecker, acceptForms } from './handlers/rest-params.ts';
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
  /** SANDBOX_CONTROL: the control API for tests (faults, ledger, stats). */
  control: boolean;
}

/** Forms and REST calls are small; anything larger is not a SATIM call. */
const BODY_LIMIT_BYTES = 16 * 1024;

/** The sandbox's HTTP application, built without listening. */
export function buildSandboxApp(deps: SandboxDeps): FastifyInstance {
  const app = Fastify({
    loggerInstance: deps.logger,
    bodyLimit: BODY_LIMIT_BYTES,
    logController: new RouteLogController(),
  });
  acceptForms(app);

  const book = orderBook();
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
    controlRoutes(app, { book, clock: deps.clock, injector, counter });
  }
  restRoutes(app, {
    book,
    clock: deps.clock,
    logger: deps.logger,
    authorized: credentialsChecker(deps.credentials),
    newOrderId: randomUUID,
    publicUrl: deps.publicUrl,
    confirmDelayMs: deps.confirmDelayMs,
    stopping: deps.stopping,
  });
  formRoutes(app, { book, clock: deps.clock, logger: deps.logger });
  app.get('/healthz', () => ({ status: 'ok' }));
  return app;
}
