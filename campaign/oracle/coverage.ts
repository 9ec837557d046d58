import type { Counters, Verdict } from './evidence.ts';

/**
 * What an invariant needs to have looked at for its "ok" to mean anything: a counter of
 * the run (an action that succeeded, a thing compared) and how many of it. A run too
 * short to meet a rare action is not held to it (`fromMinutes`).
 */
export interface Floor {
  invariant: string;
  counter: string;
  /** At least this many, once the floor applies. */
  min: number;
  /** And at least this many per minute of run (rounded down). */
  perMinute: number;
  /** The floor applies to runs at least this long. */
  fromMinutes: number;
}

/**
 * The floors, as data to tune from real runs (`coverageTable` prints where each run
 * stood). The 35 s run of `pnpm test` meets those from 0; the rarer actions (a crash
 * between a commit and its answer, a refund held by the network) are asked of longer runs.
 */
const TABLE: readonly [string, string, number, number, number][] = [
  // invariant, counter, min, per minute, from minutes
  ['status answers equal the stage', 'finalStatusAnswers', 1, 0, 0],
  ['status samples', 'statusSamples', 10, 20, 0],
  ['status samples', 'paidSamples', 1, 0, 0],
  // Reads made while an attempt surely held its reference (a payer on the card form, or
  // money deposited): those (f) checked. About 60 a minute in a run of 8 payers.
  ['never free while held', 'readsWhileHeld', 1, 5, 0],
  ['webhook bodies', 'webhooksCompared', 1, 5, 0],
  ['refunds', 'partialRefundsAcknowledged', 1, 0, 1],
  ['refunds', 'fullRefundsAcknowledged', 1, 0, 1],
  ['refunds', 'agencyRefunds', 1, 0, 2],
  ['refunds', 'refundsPendingThenKnown', 1, 0, 2],
  ['refunds', 'lateRefunds', 1, 0, 2],
  ['orders', 'cancelsAcknowledged', 1, 0, 1],
  ['orders', 'credentialFaults', 1, 0, 2],
  ['one sale per product', 'caseVariantAttempts', 1, 0, 1],
  ['acknowledged writes', 'registrationsRetriedAfterCrash', 1, 0, 5],
  ['reconciliation', 'reconciledOrders', 1, 0, 0],
  ['balance', 'balanceAnswers', 2, 0, 0],
  ['balance', 'payoutsRecorded', 1, 0, 1],
  ['balance', 'payoutsRefused', 1, 0, 1],
];

const floorsOf = (table: typeof TABLE): readonly Floor[] =>
  table.map(([invariant, counter, min, perMinute, fromMinutes]) => ({
    invariant,
    counter,
    min,
    perMinute,
    fromMinutes,
  }));

export const FLOORS: readonly Floor[] = floorsOf(TABLE);

/**
 * A cluster run's own: the faults only it has must each have been met, or its invariants
 * held over nothing new: five times each in a run of ten minutes or more. A count, not a
 * rate: faults run one after another, so a run of many failovers lasts longer than
 * planned, and a rate would ask more of it for that.
 */
export const CLUSTER_FLOORS: readonly Floor[] = floorsOf([
  ['every invariant, across a Postgres failover', 'postgresFailovers', 5, 0, 10],
  ['every invariant, across a NATS partition', 'natsPartitions', 5, 0, 10],
  ['every invariant, with a service cut off', 'servicesIsolated', 5, 0, 10],
]);

/** How many of a floor's counter a run of `runMinutes` needs: 0 when it does not apply. */
export function needed(floor: Floor, runMinutes: number): number {
  if (runMinutes < floor.fromMinutes) return 0;
  return Math.max(floor.min, Math.floor(floor.perMinute * runMinutes));
}

export interface CoverageEvidence {
  counters: Counters;
  runMs: number;
  floors?: readonly Floor[];
}

/** Fails for every floor the run did not meet; a counter nobody collected counts as 0. */
export function checkCoverage({ counters, runMs, floors = FLOORS }: CoverageEvidence): Verdict {
  const minutes = runMs / 60_000;
  const violations: string[] = [];
  let checked = 0;
  for (const floor of floors) {
    const need = needed(floor, minutes);
    if (need === 0) continue;
    checked++;
    const got = counters[floor.counter] ?? 0;
    if (got === 0)
      violations.push(`invariant ${floor.invariant} checked nothing: ${floor.counter} = 0`);
    else if (got < need) {
      violations.push(
        `invariant ${floor.invariant} checked too little: ${floor.counter} = ${got}, floor ${need}`,
      );
    }
  }
  return { name: 'coverage floors', checked, violations };
}

/** The run's counters against their floors, one line each, for the report. */
export function coverageTable({ counters, runMs, floors = FLOORS }: CoverageEvidence): string[] {
  const minutes = runMs / 60_000;
  const floored = new Set(floors.map((f) => f.counter));
  const width = Math.max(0, ...[...floored, ...Object.keys(counters)].map((c) => c.length));
  const line = (mark: string, counter: string, floor: string, invariant: string) =>
    `  ${mark.padEnd(4)} ${counter.padEnd(width)} ${String(counters[counter] ?? 0).padStart(7)}  ${floor.padEnd(10)} ${invariant}`;
  const lines = [`coverage (run of ${minutes.toFixed(1)} min):`];
  for (const floor of floors) {
    const need = needed(floor, minutes);
    const got = counters[floor.counter] ?? 0;
    const mark = need === 0 ? '' : got >= need ? 'ok' : 'LOW';
    lines.push(
      line(mark, floor.counter, need === 0 ? 'no floor' : `floor ${need}`, floor.invariant),
    );
  }
  for (const counter of Object.keys(counters).sort()) {
    if (!floored.has(counter)) lines.push(line('', counter, 'no floor', ''));
  }
  return lines;
}
