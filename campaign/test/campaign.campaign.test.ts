import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { report, violationsOf } from '../report.ts';
import { runCampaign } from '../run.ts';

/**
 * The short seeded campaigns of every `pnpm test`: the whole system as processes, payers
 * and merchants on every path, faults from the seed, and the invariants
 * (docs/reliability.md); once on one NATS server, once on the production topology (a
 * 3-node cluster, two replicas of each service). A failure prints the report, whose
 * first line replays the run.
 */
const SEED = 20261123;
const CLUSTER_SEED = 20261124;

describe('the fault campaign, short', () => {
  it(`holds every invariant for seed ${SEED}`, async () => {
    const result = await runCampaign({
      seed: SEED,
      runMs: 35_000,
      payers: 6,
      faults: true,
      outDir: join(tmpdir(), 'dzpay-campaign'),
      cluster: false,
      focus: null,
    });
    const text = report(result);
    expect(violationsOf(result), text).toBe(0);
    // It did what a campaign must, or holding the invariants proves little.
    expect(Object.keys(result.counts.faults).length, text).toBeGreaterThanOrEqual(3);
    expect(result.counts.payments['AGENCY product success'] ?? 0, text).toBeGreaterThan(0);
    expect(result.counts.payments['CHECKOUT order success'] ?? 0, text).toBeGreaterThan(0);
    expect(result.counts.webhooks.distinct, text).toBeGreaterThan(0);
  }, 120_000);

  it(`holds every invariant on a 3-node NATS cluster with two replicas of each service, seed ${CLUSTER_SEED}`, async () => {
    const result = await runCampaign({
      seed: CLUSTER_SEED,
      runMs: 35_000,
      payers: 6,
      faults: true,
      outDir: join(tmpdir(), 'dzpay-campaign'),
      cluster: true,
      focus: null,
    });
    const text = report(result);
    expect(violationsOf(result), text).toBe(0);
    const faults = Object.keys(result.counts.faults);
    expect(
      faults.some((fault) => fault.startsWith('kill-nats-node')),
      text,
    ).toBe(true);
    expect(
      result.verdicts.some((v) => v.name.includes('STREAM_REPLICAS')),
      text,
    ).toBe(true);
    expect(result.counts.payments['AGENCY product success'] ?? 0, text).toBeGreaterThan(0);
    expect(result.counts.webhooks.distinct, text).toBeGreaterThan(0);
  }, 180_000);
});
