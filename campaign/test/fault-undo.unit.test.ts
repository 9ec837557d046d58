import { PairNotHealed } from '@dzpay/testkit/postgres-pair';
import { describe, expect, it } from 'vitest';
import { runFaults, type PlannedFault } from '../faults.ts';
import { healWorld } from '../heal.ts';

// A fault whose undo fails: the world is healed and the run goes on, or the faults stop
// and the run ends on a verdict that names the fault and what is broken. Never a run that
// goes on judging a world nobody meant to make, nor one that waits for ever.

const plan: PlannedFault[] = [
  { at: 0, kind: 'failover-postgres', replicationStalledMs: 0 },
  { at: 0, kind: 'flush-redis' },
];

/** The campaign's infrastructure as far as these two faults reach it. */
function infraWith(failover: () => Promise<{ promotedAfterMs: number; writableAfterMs: number }>) {
  const flushed: number[] = [];
  const infra = {
    failoverPostgres: failover,
    redis: { flushAll: () => Promise.resolve(flushed.push(Date.now())) },
  };
  return { infra, flushed };
}

async function run(
  failover: () => Promise<{ promotedAfterMs: number; writableAfterMs: number }>,
  heal: (failure: unknown) => Promise<string | null>,
) {
  const { infra, flushed } = infraWith(failover);
  const ended: string[] = [];
  const lines: string[] = [];
  const outcome = await runFaults({
    plan,
    startedAt: Date.now(),
    until: Date.now() + 60_000,
    stack: {} as never,
    infra: infra as never,
    sandbox: {} as never,
    partner: {} as never,
    log: (line) => lines.push(line),
    endRun: (reason) => ended.push(reason),
    heal: (_deps, failure) => heal(failure),
  });
  return { outcome, ended, flushed, lines };
}

describe('a fault whose undo fails', () => {
  it('a Postgres pair that cannot heal ends the run at once, on a verdict naming it', async () => {
    const { outcome, ended, flushed } = await run(
      () => Promise.reject(new PairNotHealed('the standby b would not start again')),
      (failure) => Promise.resolve(failure instanceof Error ? failure.message : 'broken'),
    );
    expect(outcome.broken).toBe(
      'failover-postgres left the world broken: the standby b would not start again',
    );
    expect(ended).toEqual([outcome.broken]);
    expect(outcome.windows).toMatchObject([
      { kind: 'failover-postgres', undoFailed: { healed: false } },
    ]);
    // No further fault is thrown at a broken world.
    expect(flushed).toEqual([]);
  });

  it('a world healed after the failed undo goes on with the next faults', async () => {
    const { outcome, ended, flushed, lines } = await run(
      () => Promise.reject(new Error('the new primary commits: not after 30000 ms')),
      () => Promise.resolve(null),
    );
    expect(outcome.broken).toBeNull();
    expect(ended).toEqual([]);
    expect(flushed).toHaveLength(1);
    expect(outcome.windows.map((w) => [w.kind, w.undoFailed?.healed])).toEqual([
      ['failover-postgres', true],
      ['flush-redis', undefined],
    ]);
    expect(lines).toContain('fault failover-postgres: world healed');
  });
});

describe('healing the world', () => {
  const world = (over: { start?: () => Promise<void>; commits?: () => Promise<string | null> }) => {
    const resumed: string[] = [];
    const replica = (name: string) => ({
      name,
      resume: () => resumed.push(name),
      start: over.start ?? (() => Promise.resolve()),
    });
    return {
      resumed,
      deps: {
        stack: { all: () => [replica('payments#1'), replica('gateway#1')] } as never,
        infra: {
          heal: () => Promise.resolve(),
          commits: over.commits ?? (() => Promise.resolve(null)),
          nats: { settled: () => Promise.resolve() },
        } as never,
        log: () => {},
      },
    };
  };

  it('is whole again: cuts healed, every service resumed and ready, commits, NATS led', async () => {
    const { deps, resumed } = world({});
    expect(await healWorld(deps, new Error('payments#1 not ready after 90000 ms'))).toBeNull();
    expect(resumed).toEqual(['payments#1', 'gateway#1']);
  });

  it('says what is still broken: a service that will not start, a database that commits nothing', async () => {
    const down = world({ start: () => Promise.reject(new Error('qr-config#1 not ready')) });
    expect(await healWorld(down.deps, new Error('undo failed'))).toBe(
      'every service running and ready: Error: qr-config#1 not ready',
    );
    const stuck = world({ commits: () => Promise.resolve('database not committing') });
    expect(await healWorld(stuck.deps, new Error('undo failed'))).toBe(
      'the database commits: database not committing',
    );
  });

  it('does not try again a pair that said it cannot heal', async () => {
    const { deps, resumed } = world({});
    expect(await healWorld(deps, new PairNotHealed('b could not be rebuilt'))).toBe(
      'b could not be rebuilt',
    );
    expect(resumed).toEqual([]);
  });
});
