import { StatusRecord } from '@dzpay/contracts';
import { describe, expect, it } from 'vitest';
import { statusOf, type Attempt } from '../src/domain/stage.ts';

const now = new Date('2030-01-01T12:00:00.000Z');
const minutes = (n: number) => new Date(now.getTime() + n * 60_000);

let ids = 0;
function attempt(overrides: Partial<Attempt> = {}): Attempt {
  ids += 1;
  return {
    paymentId: `00000000-0000-4000-8000-${String(ids).padStart(12, '0')}`,
    status: 'failed',
    amount: 150_050,
    currency: 'DZD',
    orderId: null,
    paidAt: null,
    locksReference: true,
    lockExpiresAt: null,
    lockHasExpiry: true,
    webhookDelivery: null,
    createdAt: minutes(-30),
    updatedAt: minutes(-20),
    ...overrides,
  };
}
const processing = (overrides: Partial<Attempt> = {}) =>
  attempt({ status: 'processing', lockExpiresAt: minutes(5), ...overrides });
const succeeded = (overrides: Partial<Attempt> = {}) =>
  attempt({ status: 'success', orderId: 'ORD-1', paidAt: minutes(-10), ...overrides });

describe('stage of a reference', () => {
  it('is not_found without attempts, with nulls and DZD', () => {
    expect(statusOf('REF-1', [], now)).toEqual({
      reference: 'REF-1',
      stage: 'not_found',
      locked: false,
      paid: false,
      lockReleaseTime: null,
      paymentId: null,
      channel: 'AGENCY',
      currency: 'DZD',
      amount: null,
      payment: null,
    });
  });

  it('is locked while an attempt is processing, until its lock expires', () => {
    const inFlight = processing({ webhookDelivery: null });
    const status = statusOf('REF-1', [inFlight], now);
    expect(status).toMatchObject({
      stage: 'locked',
      locked: true,
      paid: false,
      lockReleaseTime: '2030-01-01T12:05:00.000Z',
      paymentId: inFlight.paymentId,
      payment: { status: 'processing', paidAt: null },
    });
  });

  it('counts a pending attempt as in flight too', () => {
    const status = statusOf(
      'REF-1',
      [attempt({ status: 'pending', lockExpiresAt: minutes(1) })],
      now,
    );
    expect(status).toMatchObject({ stage: 'locked', payment: { status: 'pending' } });
  });

  it('counts a lock without expiry as held, with a null lockReleaseTime', () => {
    const held = processing({
      lockExpiresAt: null,
      lockHasExpiry: false,
      createdAt: minutes(-600),
    });
    expect(statusOf('REF-1', [held], now)).toMatchObject({
      stage: 'locked',
      locked: true,
      lockReleaseTime: null,
      paymentId: held.paymentId,
    });
  });

  it('keeps an attempt whose lock time passed locked, without expiry, until it is decided', () => {
    const expiring = processing({ lockExpiresAt: now });
    expect(statusOf('REF-1', [expiring], minutes(-1))).toMatchObject({
      stage: 'locked',
      lockReleaseTime: '2030-01-01T12:00:00.000Z',
    });
    // The card may have been paid in time: "released" waits for settlement's verdict.
    expect(statusOf('REF-1', [expiring], now)).toMatchObject({
      stage: 'locked',
      locked: true,
      lockReleaseTime: null,
      paymentId: expiring.paymentId,
      payment: { status: 'processing' },
    });
    expect(statusOf('REF-1', [{ ...expiring, status: 'failed' }], minutes(60)).stage).toBe(
      'released',
    );
  });

  it('never counts an in-flight attempt that holds nothing (a multi-use QR code) as locked', () => {
    const free = processing({ locksReference: false, lockExpiresAt: null });
    expect(statusOf('REF-1', [free], now)).toMatchObject({ stage: 'released', locked: false });
  });

  it('is paid once an attempt succeeded, with DZD amounts and the payment detail', () => {
    const paid = succeeded({ webhookDelivery: 'fail' });
    expect(statusOf('REF-1', [paid], now)).toEqual({
      reference: 'REF-1',
      stage: 'paid',
      locked: false,
      paid: true,
      lockReleaseTime: null,
      paymentId: paid.paymentId,
      channel: 'AGENCY',
      currency: 'DZD',
      amount: 1500.5,
      payment: {
        paymentId: paid.paymentId,
        status: 'success',
        amount: 1500.5,
        currency: 'DZD',
        paidAt: '2030-01-01T11:50:00.000Z',
        orderId: 'ORD-1',
        webhookDelivery: 'fail',
        createdAt: '2030-01-01T11:30:00.000Z',
        updatedAt: '2030-01-01T11:40:00.000Z',
      },
    });
  });

  it('reports paid even while another attempt is processing', () => {
    const paid = succeeded({ createdAt: minutes(-30) });
    const later = processing({ createdAt: minutes(-1) });
    const status = statusOf('REF-1', [later, paid], now);
    expect(status).toMatchObject({ stage: 'paid', locked: false, paid: true });
    expect(status.paymentId).toBe(paid.paymentId);
  });

  it('is released when attempts exist and none succeeded or holds a lock', () => {
    const first = attempt({ createdAt: minutes(-30) });
    const latest = attempt({ createdAt: minutes(-10) });
    const status = statusOf('REF-1', [latest, first], now);
    expect(status).toMatchObject({ stage: 'released', locked: false, paid: false });
    expect(status.paymentId).toBe(latest.paymentId);
  });

  it('is refunded when the latest decided attempt was refunded', () => {
    const refunded = attempt({ status: 'refunded', paidAt: minutes(-25), createdAt: minutes(-10) });
    const older = attempt({ createdAt: minutes(-30) });
    expect(statusOf('REF-1', [older, refunded], now)).toMatchObject({
      stage: 'refunded',
      locked: false,
      paid: false,
      paymentId: refunded.paymentId,
      payment: { status: 'refunded' },
    });
  });

  it('is released when a failure came after the refund', () => {
    const refunded = attempt({ status: 'refunded', createdAt: minutes(-30) });
    const failed = attempt({ createdAt: minutes(-10) });
    const status = statusOf('REF-1', [refunded, failed], now);
    expect(status.stage).toBe('released');
    expect(status.paymentId).toBe(failed.paymentId);
  });

  it('is locked rather than refunded while a new attempt holds the reference', () => {
    const refunded = attempt({ status: 'refunded', createdAt: minutes(-30) });
    const inFlight = processing({ createdAt: minutes(-1) });
    expect(statusOf('REF-1', [refunded, inFlight], now).stage).toBe('locked');
  });

  it('says locked, not refunded, while an undecided attempt whose lock time passed remains', () => {
    const refunded = attempt({ status: 'refunded', createdAt: minutes(-30) });
    const expired = processing({ createdAt: minutes(-20), lockExpiresAt: minutes(-5) });
    const status = statusOf('REF-1', [refunded, expired], now);
    expect(status).toMatchObject({ stage: 'locked', lockReleaseTime: null });
    expect(status.paymentId).toBe(expired.paymentId);
  });

  it.each([
    ['locked', processing()],
    ['paid', succeeded()],
    ['released', attempt({ status: 'failed' })],
    ['refunded', attempt({ status: 'refunded' })],
  ] as const)('pairs stage %s with the payment status the spec shows', (stage, decider) => {
    const pairing = {
      locked: 'processing',
      paid: 'success',
      released: 'failed',
      refunded: 'refunded',
    };
    const status = statusOf('REF-1', [decider], now);
    expect(status.stage).toBe(stage);
    expect(status.payment?.status).toBe(pairing[stage]);
    expect(StatusRecord.safeParse(status).success).toBe(true);
  });

  it('takes the latest attempt when several decide alike, the same way every time', () => {
    const a = attempt({ createdAt: minutes(-10) });
    const b = attempt({ createdAt: minutes(-10) });
    expect(statusOf('REF-1', [a, b], now).paymentId).toBe(statusOf('REF-1', [b, a], now).paymentId);
  });
});
