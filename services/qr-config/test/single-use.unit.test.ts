import type { PaymentEvent } from '@dzpay/contracts';
import { describe, expect, it } from 'vitest';
import { singleUseClearing } from '../src/domain/single-use.ts';

const event: PaymentEvent = {
  id: '33333333-3333-4333-8333-333333333333',
  type: 'payment.succeeded',
  version: 1,
  occurredAt: '2030-01-01T10:05:00.000Z',
  merchantId: '11111111-1111-4111-8111-111111111111',
  mode: 'live',
  data: {
    paymentId: '44444444-4444-4444-8444-444444444444',
    reference: 'QRTOKEN',
    channel: 'AGENCY',
    amount: 150_000,
    fees: 5_000,
    total: 155_000,
    currency: 'DZD',
    status: 'success',
    orderId: '0000000042',
    approvalCode: '123456',
    maskedPan: '628058**0009',
    failureReason: null,
    refundedAmount: 0,
    paidAt: '2030-01-01T10:05:00.000Z',
    metadata: null,
    createdAt: '2030-01-01T10:00:00.000Z',
    referenceKind: 'qr',
    epoch: 3,
  },
};

describe('singleUseClearing', () => {
  it('asks to clear the configuration version the payment paid', () => {
    expect(singleUseClearing(event)).toEqual({
      eventId: event.id,
      merchantId: event.merchantId,
      mode: 'live',
      token: 'QRTOKEN',
      version: 3,
    });
  });

  it('ignores a product reference that reads like the token', () => {
    expect(
      singleUseClearing({ ...event, data: { ...event.data, referenceKind: 'product', epoch: 0 } }),
    ).toBeNull();
  });

  it('clears nothing for an event that names no version (written before epochs)', () => {
    const data = { ...event.data };
    delete data.referenceKind;
    delete data.epoch;
    expect(singleUseClearing({ ...event, data })).toBeNull();
  });

  it('ignores hosted-checkout payments and events other than a success', () => {
    expect(
      singleUseClearing({ ...event, data: { ...event.data, channel: 'CHECKOUT' } }),
    ).toBeNull();
    expect(singleUseClearing({ ...event, type: 'payment.failed' })).toBeNull();
  });
});
