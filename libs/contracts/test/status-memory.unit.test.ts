import { describe, expect, it } from 'vitest';
import { statusAsOf, statusChangeOf, statusKey, type StatusRecord } from '../src/status.ts';

const merchantId = '8d5e2f0a-9c1b-4a3e-8f7d-2b6c1a0e9d4f';
const locked: StatusRecord = {
  reference: 'BOOK-1',
  stage: 'locked',
  locked: true,
  paid: false,
  lockReleaseTime: '2030-01-01T00:15:00.000Z',
  paymentId: 'p1',
  channel: 'AGENCY',
  currency: 'DZD',
  amount: 1500,
  payment: null,
};

describe('a status record as of now', () => {
  it('keeps the lock end while it is ahead, and drops it once passed, still locked', () => {
    expect(statusAsOf(locked, new Date('2030-01-01T00:14:59.999Z'))).toBe(locked);
    expect(statusAsOf(locked, new Date('2030-01-01T00:15:00.000Z'))).toEqual({
      ...locked,
      lockReleaseTime: null,
    });
    const paid = { ...locked, stage: 'paid' as const, locked: false, lockReleaseTime: null };
    expect(statusAsOf(paid, new Date('2040-01-01T00:00:00.000Z'))).toBe(paid);
  });
});

describe('status change notifications', () => {
  it('name the reference the trigger wrote, in the key everyone remembers it under', () => {
    // What json_build_array(merchant_id, mode, reference)::text writes (spaces included).
    const payload = `["${merchantId}", "test", "BOOK/1 \\"é\\""]`;
    const changed = statusChangeOf(payload);
    expect(changed).toEqual({ merchantId, mode: 'test', reference: 'BOOK/1 "é"' });
    expect(statusKey(changed!)).toBe(
      statusKey({ merchantId, mode: 'test', reference: 'BOOK/1 "é"' }),
    );
  });

  it('are null when unreadable, and keys never collide across the three parts', () => {
    expect(statusChangeOf('not json')).toBeNull();
    expect(statusChangeOf(`["${merchantId}", "prod", "X"]`)).toBeNull();
    expect(statusChangeOf(`["${merchantId}", "test"]`)).toBeNull();
    expect(statusKey({ merchantId, mode: 'test', reference: 'a","b' })).not.toBe(
      statusKey({ merchantId, mode: 'test', reference: 'a' }),
    );
  });
});
