import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Consumer, ConsumerInfo } from '@nats-io/jetstream';
import { BaseEnv } from '../src/config.ts';
import { metricsOf } from '../src/metrics.ts';
import { startRuntime, type Runtime } from '../src/runtime.ts';

let infra: IsolatedInfra;
let runtime: Runtime<BaseEnv>;
const ops = (path: string) => fetch(`http://127.0.0.1:${runtime.ops.port}${path}`);

beforeAll(async () => {
  infra = await isolatedInfra('platform-runtime');
  runtime = await startRuntime(
    {
      service: 'sample',
      schema: 'sample',
      migrations: new URL('./migrations-ok/', import.meta.url),
      env: BaseEnv,
      redis: true,
      handleSignals: false,
    },
    { ...infra.env, CONSUMER_STALL_MS: '1000' },
  );
});
afterAll(async () => {
  await runtime?.stop();
  await infra?.cleanup();
});

describe('service runtime', () => {
  it('applies the migrations before anything else', async () => {
    const rows = await runtime.sql`select name from schema_migrations order by name`;
    expect(rows.map((row) => row.name as string)).toEqual([
      '001_create_items.sql',
      '002_add_price.sql',
    ]);
  });

  it('answers /healthz at once and /readyz only once the service says it is wired', async () => {
    expect((await ops('/healthz')).status).toBe(200);
    const starting = await ops('/readyz');
    expect(starting.status).toBe(503);
    expect(await starting.json()).toMatchObject({ status: 'starting' });

    runtime.ops.markReady();
    const ready = await ops('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: { postgres: 'ok', commits: 'ok', nats: 'ok', redis: 'ok', consumers: 'ok' },
    });
  });

  it('stays in rotation but says degraded while a stream consumer does not move', async () => {
    // A consumer with messages waiting whose ack floor never moves (its reader is stuck).
    const stuck = {
      info: () =>
        Promise.resolve({
          num_pending: 5,
          num_ack_pending: 0,
          ack_floor: { stream_seq: 7, consumer_seq: 7 },
        } as ConsumerInfo),
    } as unknown as Consumer;
    let reattached = 0;
    metricsOf(runtime.nats)!
      .watchConsumer('S', 'stuck', stuck)
      .onStall(() => reattached++);
    const readiness = () =>
      ops('/readyz').then(
        (r) => r.json() as Promise<{ status: string; checks: Record<string, string> }>,
      );
    await expect
      .poll(async () => (await readiness()).status, { timeout: 10_000, interval: 250 })
      .toBe('degraded');
    expect((await readiness()).checks.consumers).toMatch(
      /^S\/stuck stalled for \d+ s with 5 waiting$/,
    );
    expect((await ops('/readyz')).status).toBe(200);
    expect(reattached).toBeGreaterThanOrEqual(1);
    expect(await (await ops('/metrics')).text()).toMatch(
      /dzpay_stream_consumer_stalled\{stream="S",consumer="stuck",service="sample"\} 1/,
    );
  });

  it('serves Prometheus metrics with the service label', async () => {
    const response = await ops('/metrics');
    expect(response.headers.get('content-type')).toContain('text/plain');
    expect(await response.text()).toMatch(/process_cpu_user_seconds_total\{service="sample"\}/);
  });

  it('uses the prefixes it was given for Redis keys', async () => {
    await runtime.redis!.set('probe', '1');
    const raw = runtime.redis!.duplicate({ keyPrefix: '' });
    expect(await raw.get(`${infra.redisPrefix}probe`)).toBe('1');
    await raw.quit();
  });

  it('stops intake first, reports draining, then closes every connection', async () => {
    const order: string[] = [];
    runtime.onStop(async () => {
      const readiness = await ops('/readyz');
      order.push(`intake stopped while readyz=${readiness.status}`);
    });
    await runtime.stop();
    order.push('stopped');
    expect(order).toEqual(['intake stopped while readyz=503', 'stopped']);
    expect(runtime.nats.isClosed()).toBe(true);
    await expect(ops('/healthz')).rejects.toThrow();
  });
});
