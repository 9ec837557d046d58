import { describe, expect, it } from 'vitest';
import { paymentEvent } from '@dzpay/testkit/payment-events';
import { singleUseClearing } from '../src/domain/single-use.ts';

const event = paymentEvent(
  { merchantId: '11111111-1111-4111-8111-111111111111', mode: 'live' },
  'payment.succeeded',
  {
    paymentId: '44444444-4444-4444-8444-444444444444',
    reference: 'QRTOKEN',
    amount: 150_000,
    total: 155_000,
    orderId: '0000000042',
    approvalCode: '123456',
    maskedPan: '628058**0009',
    paidAt: '2030-01-01T10:05:00.000Z',
    createdAt: '2030-01-01T10:00:00.000Z',
    referenceKind: 'qr',
    epoch: 3,
  },
  { id: '33333333-3333-4333-8333-333333333333', occurredAt: '2030-01-01T10:05:00.000Z' },
);

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
