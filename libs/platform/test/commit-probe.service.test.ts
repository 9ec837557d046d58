import { createDatabase } from '@dzpay/testkit/databases';
import { startPostgresPair, type PostgresPair } from '@dzpay/testkit/postgres-pair';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_COMMITTING } from '../src/commit-probe.ts';
import { BaseEnv } from '../src/config.ts';
import { startRuntime, type Runtime } from '../src/runtime.ts';

// A synchronous primary whose standby is gone answers reads and commits nothing: what
// /readyz says then, and again once the standby streams.

let pair: PostgresPair;
let infra: IsolatedInfra;
let runtime: Runtime<BaseEnv>;
const readiness = async () => {
  const response = await fetch(`http://127.0.0.1:${runtime.ops.port}/readyz`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

beforeAll(async () => {
  pair = await startPostgresPair();
  infra = await isolatedInfra('platform-commit-probe');
  await createDatabase(pair.primaryUrl('postgres'), 'dzpay_commit_probe');
  runtime = await startRuntime(
    {
      service: 'sample',
      schema: 'sample',
      migrations: new URL('./migrations-ok/', import.meta.url),
      env: BaseEnv,
      handleSignals: false,
    },
    { ...infra.env, DATABASE_URL: pair.url('dzpay_commit_probe') },
  );
  runtime.ops.markReady();
}, 60_000);
afterAll(async () => {
  await pair?.resumeReplication();
  await runtime?.stop();
  await pair?.stop();
  await infra?.cleanup();
});

describe('/readyz while the database commits nothing', () => {
  it('says degraded with the reason within seconds, stays in rotation, and ready again after', async () => {
    expect(await readiness()).toMatchObject({ status: 200, body: { status: 'ready' } });
    await pair.stallReplication();
    const started = Date.now();
    const stalled = await readiness();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(stalled).toMatchObject({
      status: 200,
      body: { status: 'degraded', checks: { postgres: 'ok', commits: NOT_COMMITTING } },
    });
    // Reads still answer: only the commit says what is wrong.
    expect(await runtime.sql`select 1 as one`).toEqual([{ one: 1 }]);

    await pair.resumeReplication();
    await expect
      .poll(async () => (await readiness()).body.status, { timeout: 15_000 })
      .toBe('ready');
    // The probes cancelled their waits: none is left waiting on the server.
    const [waiting] = await runtime.sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
      where application_name = 'dzpay-commit-probe' and wait_event = 'SyncRep'`;
    expect(waiting!.n).toBe(0);
  }, 60_000);
});
