import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PairNotHealed, startPostgresPair, type PostgresPair } from '../src/postgres-pair.ts';

// A failover that goes wrong half-way must still end: with the pair healed (a primary
// that commits, a synchronous standby behind it), or with PairNotHealed saying what is
// left. Never a failover() that waits for ever, nor a pair that silently commits nothing.

const PROMOTE_WITHIN_MS = 3_000;

/** Commits one row on whatever the pair's primary is now; rejects after 10 s. */
async function commitsOnce(pair: PostgresPair): Promise<void> {
  const sql = postgres(pair.url('postgres'), { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await sql`create table if not exists failover_probe (at timestamptz default now())`;
    const insert = sql`insert into failover_probe default values`;
    const timer = setTimeout(() => insert.cancel(), 10_000);
    await insert.finally(() => clearTimeout(timer));
  } finally {
    await sql.end({ timeout: 1 });
  }
}

describe('a failover that goes wrong half-way', () => {
  let pair: PostgresPair;
  let logDir: string;
  beforeAll(async () => {
    logDir = await mkdtemp(join(tmpdir(), 'dzpay-pair-log-'));
    pair = await startPostgresPair({ logDir, promoteWithinMs: PROMOTE_WITHIN_MS });
  }, 60_000);
  afterAll(async () => {
    await pair?.stop();
    await rm(logDir, { recursive: true, force: true });
  });

  it('a promotion check that hangs is given up and asked again: the pair heals', async () => {
    const hung: number[] = [];
    const timings = await pair.failover({
      trouble: {
        beforeCheck: (attempt) => {
          if (attempt > 1) return Promise.resolve();
          hung.push(attempt);
          return new Promise<void>(() => {});
        },
      },
    });
    expect(hung).toEqual([1]);
    expect(timings.writableAfterMs).toBeGreaterThanOrEqual(timings.promotedAfterMs);
    await commitsOnce(pair);
    const steps = await readFile(join(logDir, 'postgres-pair.log'), 'utf8');
    expect(steps).toMatch(/promotion check 1 of \w: no answer within \d+ ms/);
    expect(steps).toMatch(/\w commits after \d+ ms/);
    // Each server's own log is kept beside the steps.
    expect(await readFile(join(logDir, 'postgres-a.log'), 'utf8')).toContain('database system');
  }, 90_000);

  it('a standby left stopped is restarted, promoted, and given a standby: the pair heals', async () => {
    const timings = await pair.failover({ trouble: { standbyStopped: true } });
    expect(timings.promotedAfterMs).toBeGreaterThanOrEqual(PROMOTE_WITHIN_MS);
    await commitsOnce(pair);
    const steps = await readFile(join(logDir, 'postgres-pair.log'), 'utf8');
    expect(steps).toMatch(/not confirmed in \d+ ms: restarting its server/);
    // And it fails over again as usual afterwards.
    await pair.failover({ replicationStalledMs: 300 });
    await commitsOnce(pair);
  }, 120_000);
});

describe('a failover that cannot heal', () => {
  let pair: PostgresPair;
  beforeAll(async () => {
    pair = await startPostgresPair({ promoteWithinMs: PROMOTE_WITHIN_MS });
  }, 60_000);
  afterAll(() => pair?.stop());

  it('says so at once, naming what is left, instead of waiting', async () => {
    const started = Date.now();
    const failed = await pair
      .failover({ trouble: { standbyStopped: true, standbyWontStart: true } })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(failed).toBeInstanceOf(PairNotHealed);
    expect(String(failed)).toMatch(/standby \w would not start again/);
    expect(Date.now() - started).toBeLessThan(PROMOTE_WITHIN_MS + 20_000);
  }, 90_000);
});
