import Fastify from 'fastify';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { httpLimitOptions } from './http-limits.ts';

/** A named dependency check: resolves when the dependency answers, rejects otherwise. */
export type ReadinessCheck = () => Promise<unknown>;

export interface OpsServer {
  readonly port: number;
  readonly registry: Registry;
  /** The service has wired its handlers: /readyz may answer 200 from now on. */
  markReady(): void;
  /** From now on /readyz answers 503, so load balancers stop sending work. */
  markDraining(): void;
  close(): Promise<void>;
}

const CHECK_TIMEOUT_MS = 2_000;

export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * The ops port every service has: /healthz (the process runs), /readyz (every
 * dependency answers) and /metrics (Prometheus text format). It is never public.
 * A failing check named in `degradable` is reported (status `degraded`) without taking
 * the service out of rotation: the service works on without that dependency.
 */
export async function startOpsServer(options: {
  host: string;
  port: number;
  registry: Registry;
  checks: Record<string, ReadinessCheck>;
  degradable?: readonly string[];
}): Promise<OpsServer> {
  const degradable = new Set(options.degradable ?? []);
  // Never public, but probes and scrapers can stall like anyone: the same limits.
  const app = Fastify({ logger: false, ...httpLimitOptions() });
  let phase: 'starting' | 'ready' | 'draining' = 'starting';

  // Which process answers: a harness that picked this port checks it is its own child's,
  // not another process's that took the port first (libs/testkit spawnService).
  app.addHook('onSend', async (_request, reply) => {
    void reply.header('x-process-id', String(process.pid));
  });

  app.get('/healthz', (_request, reply) => reply.send({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const results = await Promise.all(
      Object.entries(options.checks).map(async ([name, check]) => [name, await run(check)]),
    );
    const checks = Object.fromEntries(results) as Record<string, string>;
    const failing = Object.keys(checks).filter((name) => checks[name] !== 'ok');
    const status =
      phase !== 'ready'
        ? phase
        : failing.length === 0
          ? 'ready'
          : failing.every((name) => degradable.has(name))
            ? 'degraded'
            : 'not ready';
    const serving = status === 'ready' || status === 'degraded';
    return reply.code(serving ? 200 : 503).send({ status, checks });
  });

  app.get('/metrics', async (_request, reply) => {
    return reply.type(options.registry.contentType).send(await options.registry.metrics());
  });

  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    port,
    registry: options.registry,
    markReady: () => {
      if (phase === 'starting') phase = 'ready';
    },
    markDraining: () => {
      phase = 'draining';
    },
    close: () => app.close(),
  };
}

async function run(check: ReadinessCheck): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(), timeout]);
    return 'ok';
  } catch (error) {
    return error instanceof Error ? error.message : 'failed';
  } finally {
    clearTimeout(timer);
  }
}
