import { describe, expect, it } from 'vitest';
import type { LedgerOrder, PaymentRow, Stage, StatusSample } from '../oracle/evidence.ts';
import { checkStatusSamples, type SampleEvidence } from '../oracle/status-samples.ts';
import {
  date,
  depositedOrder,
  MERCHANT,
  paid,
  payment,
  refundedOrder,
  t,
} from './oracle-fixtures.ts';

const STATUS_OF: Record<Stage, string | null> = {
  locked: 'processing',
  paid: 'success',
  released: 'failed',
  refunded: 'refunded',
  not_found: null,
};

/** A read of P0-1 answered at `at` seconds (sent 100 ms before unless told). */
function read(stage: Stage, at: number, paymentId: string | null, sentAt = at - 0.1): StatusSample {
  return {
    sentAt: t(sentAt),
    at: t(at),
    merchantIndex: 0,
    reference: 'P0-1',
    stage,
    paymentId,
    paymentStatus: STATUS_OF[stage],
    locked: stage === 'locked',
    paid: stage === 'paid',
  };
}

function verdictOf(
  rule: string,
  samples: StatusSample[],
  payments: PaymentRow[],
  ledger: LedgerOrder[] = [],
) {
  const evidence: SampleEvidence = {
    samples,
    payments,
    ledger,
    merchantIds: [MERCHANT],
    mode: 'test',
  };
  const verdict = checkStatusSamples(evidence).find((v) => v.name.includes(rule));
  if (!verdict) throw new Error(`no verdict named like ${rule}`);
  return verdict;
}

describe('status samples (a): never paid before the network deposited', () => {
  const rule = 'before the network deposited';

  it('holds for a paid read after the deposit', () => {
    const verdict = verdictOf(
      rule,
      [read('paid', 6, 'a')],
      [paid('a', 5)],
      [depositedOrder('a', 5)],
    );
    expect(verdict).toMatchObject({ checked: 1, violations: [] });
  });

  it('catches a paid read that arrived before the deposit, or for an order never deposited', () => {
    const verdict = verdictOf(
      rule,
      [read('paid', 4, 'a'), read('paid', 4, 'b')],
      [paid('a', 5), paid('b', 5)],
      [depositedOrder('a', 5), { ...depositedOrder('b', 5), status: 0, operations: [] }],
    );
    expect(verdict.violations).toHaveLength(2);
    expect(verdict.violations[0]).toContain('1000 ms before the network deposited a');
    expect(verdict.violations[1]).toContain('the network never deposited b');
  });
});

describe('status samples (b): never paid, then locked or released', () => {
  const rule = 'never paid, then locked';

  it('holds when the payment was refunded in full before, and for reads in flight together', () => {
    const again = payment('b', { status: 'processing', created_at: date(16) });
    const verdict = verdictOf(
      rule,
      [read('paid', 6, 'a'), read('locked', 6.5, 'x', 5.9), read('locked', 20, 'b')],
      [paid('a', 5, { status: 'refunded' }), again],
      [refundedOrder('a', 5, 15)],
    );
    expect(verdict).toMatchObject({ checked: 1, violations: [] });
  });

  it('catches a locked and a released read sent after a paid one arrived', () => {
    const verdict = verdictOf(
      rule,
      [read('paid', 6, 'a'), read('locked', 8, 'a'), read('released', 9, 'a')],
      [paid('a', 5)],
      [depositedOrder('a', 5)],
    );
    expect(verdict.violations).toHaveLength(2);
    expect(verdict.violations[0]).toContain('read locked');
    expect(verdict.violations[1]).toContain('read released');
  });
});

describe('status samples (c): never released while an attempt can still succeed', () => {
  const rule = 'never released while';

  it('holds when the attempt that succeeded came after, or was refunded before', () => {
    const failed = payment('a', { status: 'failed', created_at: date(2), updated_at: date(4) });
    const later = paid('b', 15, { created_at: date(12) });
    const verdict = verdictOf(
      rule,
      [read('released', 10, 'a')],
      [failed, later],
      [depositedOrder('b', 15)],
    );
    expect(verdict).toMatchObject({ checked: 1, violations: [] });
    const refundedBefore = paid('c', 5, { status: 'refunded', created_at: date(1) });
    const again = verdictOf(
      rule,
      [read('released', 10, 'a')],
      [failed, refundedBefore],
      [refundedOrder('c', 5, 8)],
    );
    expect(again.violations).toEqual([]);
  });

  it('catches a released read while an attempt that later succeeded existed', () => {
    const failed = payment('a', { status: 'failed', updated_at: date(4) });
    const inFlight = paid('b', 15, { created_at: date(2) });
    const verdict = verdictOf(
      rule,
      [read('released', 10, 'a')],
      [failed, inFlight],
      [depositedOrder('b', 15)],
    );
    expect(verdict.violations).toHaveLength(1);
    expect(verdict.violations[0]).toContain('b, created');
  });
});

describe('status samples (d): never locked by an attempt already decided', () => {
  const rule = 'never locked by';

  it('holds within the visibility allowance of the decision', () => {
    const failed = payment('a', { status: 'failed', updated_at: date(4) });
    const open = payment('b', { status: 'processing' });
    const verdict = verdictOf(
      rule,
      [read('locked', 6, 'a'), read('locked', 30, 'b')],
      [failed, open],
    );
    expect(verdict).toMatchObject({ checked: 2, violations: [] });
  });

  it('catches a lock read long after its attempt failed', () => {
    const failed = payment('a', { status: 'failed', updated_at: date(4) });
    const verdict = verdictOf(rule, [read('locked', 10, 'a')], [failed]);
    expect(verdict.violations).toHaveLength(1);
    expect(verdict.violations[0]).toContain('it was failed by');
  });
});

describe('status samples (e): every record pairs its stage as the spec says', () => {
  const rule = 'pairs its stage';

  it('holds for the five stages as the spec shows them', () => {
    const samples = (['locked', 'paid', 'released', 'refunded'] as const).map((s) =>
      read(s, 1, 'a'),
    );
    const verdict = verdictOf(rule, [...samples, read('not_found', 1, null)], []);
    expect(verdict).toMatchObject({ checked: 5, violations: [] });
  });

  it('catches flags or a payment status that do not go with the stage', () => {
    const verdict = verdictOf(
      rule,
      [
        { ...read('paid', 1, 'a'), locked: true },
        { ...read('released', 1, 'a'), paymentStatus: 'processing' },
        read('not_found', 1, 'a'),
      ],
      [],
    );
    expect(verdict.violations).toHaveLength(3);
  });
});
