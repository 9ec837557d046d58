import { describe, expect, it } from 'vitest';
import type {
  CardFormVisit,
  LedgerOrder,
  PaymentRow,
  Stage,
  StatusSample,
} from '../oracle/evidence.ts';
import { checkNeverFreeWhileHeld, type HeldEvidence } from '../oracle/held.ts';
import {
  date,
  depositedOrder,
  isoAt,
  MERCHANT,
  order,
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

/** A read of P0-1 sent at `sentAt` seconds and answered at `at`. */
function read(stage: Stage, sentAt: number, at: number, paymentId: string | null): StatusSample {
  return {
    sentAt: t(sentAt),
    at: t(at),
    merchantIndex: 0,
    reference: 'P0-1',
    stage,
    paymentId: stage === 'not_found' ? null : paymentId,
    paymentStatus: STATUS_OF[stage],
    locked: stage === 'locked',
    paid: stage === 'paid',
  };
}

/** The payer of `paymentId` had its card form at `reached` seconds, and sent it at `sent`. */
const visit = (paymentId: string, reached: number, sent: number | null): CardFormVisit => ({
  mdOrder: `order-${paymentId}`,
  reachedAt: t(reached),
  submittedAt: sent === null ? null : t(sent),
});

/** An attempt in flight whose order `order-{id}` the network registered (window ends at 20 s). */
const onForm = (id: string, overrides: Partial<PaymentRow> = {}) =>
  payment(id, { status: 'processing', cardnet_order_id: `order-${id}`, ...overrides });

function verdictOf(
  samples: readonly StatusSample[],
  payments: readonly PaymentRow[],
  ledger: readonly LedgerOrder[],
  cardForms: readonly CardFormVisit[] = [],
  extra: Partial<HeldEvidence> = {},
) {
  return checkNeverFreeWhileHeld({
    samples,
    cardForms,
    payments,
    ledger,
    merchantIds: [MERCHANT],
    mode: 'test',
    ...extra,
  });
}

describe('status samples (f): never free while held', () => {
  it('holds for locked reads during a card-form visit and paid reads while the money is kept', () => {
    const verdict = verdictOf(
      [read('locked', 3, 3.1, 'a'), read('locked', 7, 7.2, 'a'), read('paid', 12, 12.1, 'a')],
      [paid('a', 9)],
      [depositedOrder('a', 9)],
      [visit('a', 2, 8)],
    );
    expect(verdict).toMatchObject({ checked: 3, violations: [] });
  });

  it('catches a not_found read during a card-form visit', () => {
    const verdict = verdictOf(
      [read('not_found', 4, 4.1, null)],
      [onForm('a', { status: 'failed', updated_at: date(21) })],
      [order('a')],
      [visit('a', 2, null)],
    );
    expect(verdict.violations).toHaveLength(1);
    expect(verdict.violations[0]).toContain('m0/P0-1 read not_found sent 2030-03-01T10:00:04.000Z');
    expect(verdict.violations[0]).toContain('a held it: a payer on the card form of order order-a');
    expect(verdict.violations[0]).toContain('until 2030-03-01T10:00:20.000Z');
  });

  it('catches a released read during a card-form visit that ended paid', () => {
    const verdict = verdictOf(
      [read('released', 5, 5.3, 'a')],
      [paid('a', 9)],
      [depositedOrder('a', 9)],
      [visit('a', 2, 8)],
    );
    expect(verdict.violations).toHaveLength(1);
    expect(verdict.violations[0]).toContain('read released (a)');
    expect(verdict.violations[0]).toContain('until sending it at 2030-03-01T10:00:08.000Z');
  });

  it('catches a refunded read while a deposited order was not refunded', () => {
    // An earlier attempt refunded in full, then b paid: the reference is sold again.
    const first = paid('a', 2, { status: 'refunded', created_at: date(0) });
    const second = paid('b', 9, { created_at: date(5) });
    const verdict = verdictOf(
      [read('refunded', 10, 10.1, 'a')],
      [first, second],
      [refundedOrder('a', 2, 4), depositedOrder('b', 9)],
    );
    expect(verdict.violations).toHaveLength(1);
    expect(verdict.violations[0]).toContain(
      'b held it: the network deposited order order-b at 2030-03-01T10:00:09.000Z, never refunded in full',
    );
  });

  it('leaves alone a read sent before the card form was reached', () => {
    const verdict = verdictOf(
      [read('released', 1.9, 3, 'a'), read('not_found', 2.03, 3, null)],
      [onForm('a')],
      [order('a')],
      [visit('a', 2, 8)],
    );
    expect(verdict).toMatchObject({ checked: 0, violations: [] });
  });

  it('leaves alone a read answered after the card form was sent', () => {
    const verdict = verdictOf(
      [read('released', 7, 8.01, 'a'), read('released', 8.5, 8.6, 'a')],
      [payment('a', { status: 'failed', cardnet_order_id: 'order-a', updated_at: date(8.4) })],
      [order('a', { status: 6 }, [{ operation: 'pay', at: isoAt(8.3), orderStatus: 6 }])],
      [visit('a', 2, 8)],
    );
    expect(verdict).toMatchObject({ checked: 0, violations: [] });
  });

  it('leaves alone a read after the window closed when the form was never sent', () => {
    const verdict = verdictOf(
      [read('released', 19.9, 20.05, 'a'), read('released', 21, 21.1, 'a')],
      [payment('a', { status: 'failed', cardnet_order_id: 'order-a', updated_at: date(20.5) })],
      [order('a')],
      [visit('a', 2, null)],
    );
    expect(verdict).toMatchObject({ checked: 0, violations: [] });
  });

  it('leaves alone a refunded read answered after the refund in full', () => {
    const verdict = verdictOf(
      [read('refunded', 14.9, 15.2, 'a'), read('refunded', 16, 16.1, 'a')],
      [paid('a', 5, { status: 'refunded' })],
      [refundedOrder('a', 5, 15)],
    );
    expect(verdict).toMatchObject({ checked: 0, violations: [] });
  });

  it('leaves alone what holds nothing it can prove: a cancel, another kind, a late deposit refused', () => {
    const cancelled = onForm('a', { status: 'failed', failure_reason: 'cancelled' });
    const checkout = onForm('c', {
      reference_kind: 'order',
      reference: 'P0-1',
      channel: 'CHECKOUT',
    });
    const late = payment('d', {
      status: 'failed',
      cardnet_order_id: 'order-d',
      failure_reason: 'expired',
      refund_due: true,
    });
    const verdict = verdictOf(
      [read('released', 5, 5.1, 'a'), read('released', 25, 25.1, 'd')],
      [cancelled, checkout, late],
      [order('a'), order('c'), depositedOrder('d', 21)],
      [visit('a', 2, null), visit('c', 2, null)],
    );
    expect(verdict).toMatchObject({ checked: 0, violations: [] });
    const acknowledged = verdictOf(
      [read('released', 5, 5.1, 'b')],
      [onForm('b', { status: 'failed' })],
      [order('b')],
      [visit('b', 2, null)],
      { cancelled: ['b'] },
    );
    expect(acknowledged).toMatchObject({ checked: 0, violations: [] });
  });

  it('ends a window early by the skew of a payments clock that ran ahead', () => {
    const evidence = [
      [read('released', 18, 18.1, 'a')],
      [payment('a', { status: 'failed', cardnet_order_id: 'order-a', updated_at: date(17.5) })],
      [order('a')],
      [visit('a', 2, null)],
    ] as const;
    expect(verdictOf(...evidence).violations).toHaveLength(1);
    expect(
      verdictOf(...evidence, { expiryEarlyMs: (at) => (at === t(20) ? 3_000 : 0) }),
    ).toMatchObject({ checked: 0, violations: [] });
  });
});
