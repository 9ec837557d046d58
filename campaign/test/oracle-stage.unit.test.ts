import { describe, expect, it } from 'vitest';
import type { StatusAnswer } from '../oracle/evidence.ts';
import { checkFinalStatus, stageOf } from '../oracle/stage.ts';
import { date, isoAt, MERCHANT, OTHER_MERCHANT, paid, payment, t } from './oracle-fixtures.ts';

describe('the stage the oracle recomputes from the rows', () => {
  it('is not_found without attempts, with the spec nulls', () => {
    expect(stageOf('P0-1', [], t(1))).toEqual({
      reference: 'P0-1',
      stage: 'not_found',
      locked: false,
      paid: false,
      lockReleaseTime: null,
      paymentId: null,
      currency: 'DZD',
      amount: null,
      payment: null,
    });
  });

  it('reports paid even while another attempt is processing, amounts in DZD', () => {
    const record = stageOf(
      'P0-1',
      [paid('a', 5), payment('b', { status: 'processing', created_at: date(6) })],
      t(7),
    );
    expect(record).toMatchObject({
      stage: 'paid',
      locked: false,
      paid: true,
      paymentId: 'a',
      amount: 1500.5,
    });
    expect(record.payment).toMatchObject({ status: 'success', amount: 1500.5, paidAt: isoAt(5) });
  });

  it('holds the reference while an attempt is in flight: until its window ends, or without end', () => {
    const open = payment('a', { status: 'processing' });
    expect(stageOf('P0-1', [open], t(10))).toMatchObject({
      stage: 'locked',
      locked: true,
      paymentId: 'a',
      lockReleaseTime: isoAt(20),
    });
    const awaited = payment('a', { status: 'processing', awaiting_verdict: true });
    expect(stageOf('P0-1', [awaited], t(10))).toMatchObject({
      stage: 'locked',
      lockReleaseTime: null,
    });
    // The window closed, settlement has not decided: still held, never "released".
    expect(stageOf('P0-1', [open], t(25))).toMatchObject({
      stage: 'locked',
      locked: true,
      lockReleaseTime: null,
    });
  });

  it('is refunded when the latest decided attempt was refunded, released otherwise', () => {
    const refunded = paid('a', 5, { status: 'refunded', refunded_amount: 155_050 });
    const failed = payment('b', { status: 'failed', created_at: date(8) });
    expect(stageOf('P0-1', [refunded], t(9))).toMatchObject({ stage: 'refunded', paymentId: 'a' });
    expect(stageOf('P0-1', [refunded, failed], t(9))).toMatchObject({
      stage: 'released',
      locked: false,
      paid: false,
      paymentId: 'b',
    });
    expect(stageOf('P0-1', [failed], t(9)).payment).toMatchObject({
      status: 'failed',
      paidAt: null,
    });
  });

  it('decides by the attempt created last, equal instants by the greater id', () => {
    const first = payment('a', { status: 'failed', created_at: date(3) });
    const second = payment('b', { status: 'failed', created_at: date(3) });
    expect(stageOf('P0-1', [second, first], t(9)).paymentId).toBe('b');
  });
});

describe('final status answers against the recomputed stage', () => {
  const rows = [paid('a', 5), payment('c', { reference: 'P0-2', status: 'failed' })];
  const answer = (reference: string, record: StatusAnswer['record']): StatusAnswer => ({
    merchantId: MERCHANT,
    mode: 'test',
    reference,
    at: t(60),
    httpStatus: 200,
    record,
  });
  const truth = (reference: string) =>
    stageOf(
      reference,
      rows.filter((p) => p.reference === reference),
      t(60),
    );

  it('holds when every product reference was asked and answered as the rows say', () => {
    const verdict = checkFinalStatus({
      payments: rows,
      answers: [answer('P0-1', truth('P0-1')), answer('P0-2', truth('P0-2'))],
    });
    expect(verdict.violations).toEqual([]);
    expect(verdict.checked).toBe(2);
  });

  it('catches an answer that differs, one never asked, and one refused', () => {
    const wrong = { ...truth('P0-1'), stage: 'released' as const, paid: false };
    const verdict = checkFinalStatus({
      payments: [...rows, payment('d', { merchant_id: OTHER_MERCHANT, reference: 'P1-1' })],
      answers: [answer('P0-1', wrong), { ...answer('P0-2', null), httpStatus: 503 }],
    });
    expect(verdict.violations).toEqual([
      'P1-1: its status was never asked',
      'P0-1: stage is released, the rows say paid; paid is false, the rows say true',
      'P0-2: the status endpoint answered 503',
    ]);
  });

  it('reads another merchant’s reference as not_found', () => {
    const verdict = checkFinalStatus({
      payments: rows,
      answers: [
        answer('P0-1', truth('P0-1')),
        answer('P0-2', truth('P0-2')),
        { ...answer('P0-1', stageOf('P0-1', [], t(60))), merchantId: OTHER_MERCHANT },
      ],
    });
    expect(verdict.violations).toEqual([]);
  });
});
