import { describe, expect, it } from 'vitest';
import type { StoredAttempt } from '../src/adapters/attempts-cache.ts';
import type { AttemptUpdate } from '../src/domain/attempt-event.ts';
import { callsFree, withHeldAttempts } from '../src/domain/held.ts';
import { statusOf } from '../src/domain/stage.ts';

const at = new Date('2030-01-01T10:00:00.000Z');
const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';

const stored = (
  paymentId: string,
  status: StoredAttempt['status'],
  paymentVersion: number | null,
): StoredAttempt => ({
  paymentId,
  status,
  amount: 100_00,
  currency: 'DZD',
  orderId: null,
  paidAt: null,
  locksReference: true,
  lockExpiresAt: null,
  lockHasExpiry: false,
  webhookDelivery: 'fail',
  createdAt: at,
  updatedAt: at,
  revision: 2,
  paymentVersion,
});
const row = (
  paymentId: string,
  status: AttemptUpdate['status'],
  paymentVersion: number | null,
): AttemptUpdate => ({
  ...stored(paymentId, status, paymentVersion),
  merchantId: '00000000-0000-4000-8000-0000000000ff',
  mode: 'test',
  reference: 'P-1',
  referenceKind: 'product',
  createdAt: new Date(at.getTime() + 1000),
});

describe('callsFree', () => {
  it('names the stages a partner may sell on', () => {
    expect(['not_found', 'released', 'refunded'].every((s) => callsFree(s as never))).toBe(true);
    expect(callsFree('locked')).toBe(false);
    expect(callsFree('paid')).toBe(false);
  });
});

describe('withHeldAttempts', () => {
  it('adds an attempt the projection lacks, at revision 0', () => {
    const merged = withHeldAttempts([stored(A, 'failed', 3)], [row(B, 'pending', 1)]);
    expect(merged.map((a) => [a.paymentId, a.status, a.revision])).toEqual([
      [A, 'failed', 2],
      [B, 'pending', 0],
    ]);
    expect(statusOf('P-1', merged, at)).toMatchObject({ stage: 'locked', paymentId: B });
  });

  it('replaces an older state, keeping the delivery only the projection knows', () => {
    const [merged] = withHeldAttempts([stored(A, 'processing', 2)], [row(A, 'success', 3)]);
    expect(merged).toMatchObject({ status: 'success', revision: 0, webhookDelivery: 'fail' });
  });

  it('keeps the projection when it is as new or newer', () => {
    expect(withHeldAttempts([stored(A, 'refunded', 4)], [row(A, 'success', 3)])[0]!.status).toBe(
      'refunded',
    );
    expect(withHeldAttempts([stored(A, 'success', 3)], [row(A, 'success', 3)])[0]!.revision).toBe(
      2,
    );
  });

  it('takes the row when either side has no version to compare', () => {
    expect(withHeldAttempts([stored(A, 'failed', null)], [row(A, 'success', 3)])[0]!.status).toBe(
      'success',
    );
    expect(withHeldAttempts([stored(A, 'failed', 3)], [row(A, 'success', null)])[0]!.status).toBe(
      'success',
    );
  });

  it('changes nothing when payments holds nothing', () => {
    const projected = [stored(A, 'failed', 3)];
    expect(withHeldAttempts(projected, [])).toEqual(projected);
  });
});
