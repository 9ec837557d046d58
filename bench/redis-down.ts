import { startRedisServer } from '@dzpay/testkit/servers';
import type { Measure, Measured } from './measure.ts';
import { freePort, type BenchProcess } from './processes.ts';
import type { RequestOptions } from './requests.ts';

// The redis-down scenario of `pnpm bench` (BENCH_ONLY=redis-down runs it alone): the
// same requests through a gateway whose Redis answers, then through the same gateway
// once that Redis is killed. Losing Redis must cost neither seconds nor limits
// (docs/rate-limits.md); this row shows the seconds. See docs/benchmarks.md.

export interface RedisDownDeps {
  /** A gateway child over the bench's stack, with these variables. */
  startGateway(extra: Record<string, string>): Promise<BenchProcess>;
  /** Warmup, then the measured run with the CPU of these processes read around it. */
  measure: Measure;
  /** The scenarios' autocannon options against a gateway's base URL. */
  scenarios: Record<string, (baseUrl: string) => RequestOptions>;
  /** Fails fast when a scenario's first request is not what it should be. */
  check(baseUrl: string): Promise<void>;
  /** The other processes on the path (qr-config, status), for their CPU per request. */
  pids: Record<string, number>;
}

export interface RedisDownRow {
  up: Measured;
  down: Measured;
  /** Requests per second with Redis down ÷ with Redis up. */
  ratio: number;
}

/**
 * A redis-server of the bench's own (never the shared one) and a gateway counting its
 * rate limits there. Each scenario is measured with Redis up; then the server is killed
 * (SIGKILL: the gateway's connection is refused from then on, as in an outage) and each
 * is measured again on the same gateway, which now counts in memory.
 */
export async function measureRedisDown(deps: RedisDownDeps): Promise<Record<string, RedisDownRow>> {
  const redis = await startRedisServer();
  let gateway: BenchProcess | undefined;
  try {
    const port = await freePort();
    gateway = await deps.startGateway({ REDIS_URL: redis.url, HTTP_PORT: String(port) });
    const baseUrl = `http://127.0.0.1:${port}`;
    await deps.check(baseUrl);
    const up: Record<string, Measured> = {};
    for (const [name, options] of Object.entries(deps.scenarios)) {
      up[name] = await deps.measure(`${name} (redis up)`, options(baseUrl), {
        gateway: gateway.pid,
        ...deps.pids,
        redis: redis.pid!,
      });
    }
    await redis.kill();
    await deps.check(baseUrl);
    const rows: Record<string, RedisDownRow> = {};
    for (const [name, options] of Object.entries(deps.scenarios)) {
      const down = await deps.measure(`${name} (redis down)`, options(baseUrl), {
        gateway: gateway.pid,
        ...deps.pids,
      });
      const ratio = Number((down.requests.average / up[name]!.requests.average).toFixed(3));
      rows[name] = { up: up[name]!, down, ratio };
    }
    return rows;
  } finally {
    await gateway?.stop();
    await redis.stop();
  }
}
