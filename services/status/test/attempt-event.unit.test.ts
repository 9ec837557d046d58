import type { PaymentEvent } from '@dzpay/contracts';
import { describe, expect, it } from 'vitest';
import { paymentEvent } from '@dzpay/testkit/payment-events';
import { attemptUpdateOf, isNewerState } from '../src/domain/attempt-event.ts';

const event = (data: Partial<PaymentEvent['data']>): PaymentEvent =>
  paymentEvent(
    { merchantId: '11111111-1111-4111-8111-111111111111', mode: 'test' },
    'payment.processing',
    {
      paymentId: '00000000-0000-4000-8000-000000000002',
      reference: 'REF-1',
      amount: 150_000,
      total: 155_000,
      createdAt: '2030-01-01T12:00:00.000Z',
      ...data,
    },
    { id: '00000000-0000-4000-8000-000000000001', occurredAt: '2030-01-01T12:01:00.000Z' },
  );

describe('attempt update of a payment event', () => {
  it('takes the lock expiry, amount in centimes and both timestamps', () => {
    expect(attemptUpdateOf(event({ lockExpiresAt: '2030-01-01T12:15:00.000Z' }))).toMatchObject({
      reference: 'REF-1',
      status: 'processing',
      amount: 150_000,
      lockExpiresAt: new Date('2030-01-01T12:15:00.000Z'),
      lockHasExpiry: true,
      createdAt: new Date('2030-01-01T12:00:00.000Z'),
      updatedAt: new Date('2030-01-01T12:01:00.000Z'),
    });
  });

  it('reads a null lock expiry, or none at all, as held without expiry', () => {
    for (const lock of [{ lockExpiresAt: null }, {}]) {
      expect(attemptUpdateOf(event(lock))).toMatchObject({
        lockExpiresAt: null,
        lockHasExpiry: false,
      });
    }
  });

  it('reads an attempt that holds nothing (multi-use QR) as never locked', () => {
    expect(
      attemptUpdateOf(event({ locksReference: false, lockExpiresAt: '2030-01-01T12:15:00.000Z' })),
    ).toMatchObject({ lockExpiresAt: null, lockHasExpiry: true });
  });

  it('falls back to the event time when the attempt creation time is missing', () => {
    expect(attemptUpdateOf(event({ createdAt: undefined }))?.createdAt).toEqual(
      new Date('2030-01-01T12:01:00.000Z'),
    );
  });

  it('builds no attempt from hosted-checkout events', () => {
    expect(attemptUpdateOf(event({ channel: 'CHECKOUT' }))).toBeNull();
  });
});

describe('which of two states of an attempt is newer', () => {
  it("goes by the payment's versions when both have one, else by the stream", () => {
    const at = (paymentVersion: number | null, streamSeq: number) => ({
      paymentVersion,
      streamSeq,
    });
    expect(isNewerState(at(3, 10), at(2, 11))).toBe(true);
    expect(isNewerState(at(2, 11), at(3, 10))).toBe(false);
    // The same version is the same state, told again.
    expect(isNewerState(at(3, 12), at(3, 10))).toBe(false);
    expect(isNewerState(at(null, 12), at(3, 10))).toBe(true);
    expect(isNewerState(at(3, 9), at(null, 10))).toBe(false);
  });

  it('takes the version an event carries, null when it carries none', () => {
    expect(attemptUpdateOf(event({ version: 7 }))?.paymentVersion).toBe(7);
    expect(attemptUpdateOf(event({}))?.paymentVersion).toBeNull();
  });
});
