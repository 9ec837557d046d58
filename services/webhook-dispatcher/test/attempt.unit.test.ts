import { randomUUID } from 'node:crypto';
import type { PaymentEvent, PaymentEventType } from '@dzpay/contracts';
import { WebhookEvent } from '@dzpay/partner-sdk';
import { describe, expect, it } from 'vitest';
import { paymentEvent } from '@dzpay/testkit/payment-events';
import { excerpt, judgeAnswer } from '../src/domain/attempt.ts';
import { testWebhookOf, wants, webhookOf } from '../src/domain/webhook-body.ts';

const ID = '0b7e5c1a-3f1e-4d8a-9a65-2f1d7c3e9b10';

const now = new Date('2025-03-14T09:00:00.000Z');

describe('judging a partner answer', () => {
  const judge = (status: number, body: string, retryAfter?: string) =>
    judgeAnswer({ status, body, retryAfter }, now).verdict;

  it('counts only a 2xx with {"success": true} as delivered', () => {
    expect(judge(200, '{"success":true}')).toEqual({ kind: 'delivered' });
    expect(judge(204, '{ "success": true, "extra": 1 }')).toEqual({ kind: 'delivered' });
    expect(judge(200, '{"success":"true"}').kind).toBe('retry');
    expect(judge(200, 'OK').kind).toBe('retry');
    expect(judge(200, '').kind).toBe('retry');
    expect(judge(301, '{"success":true}').kind).toBe('retry');
  });

  it('stops on 410 and carries a Retry-After otherwise', () => {
    expect(judge(410, '')).toEqual({ kind: 'stop' });
    expect(judge(503, '', '7')).toEqual({ kind: 'retry', retryAfterMs: 7_000 });
    expect(judge(500, '')).toEqual({ kind: 'retry', retryAfterMs: null });
  });
});

describe('the response excerpt', () => {
  it('keeps at most 1 KB without splitting a character', () => {
    expect(excerpt('a'.repeat(2_000))).toHaveLength(1_024);
    const cut = excerpt(`${'a'.repeat(1_023)}é`);
    expect(cut).toBe('a'.repeat(1_023));
    expect(excerpt('short')).toBe('short');
  });

  it('drops NUL characters, which Postgres text cannot hold', () => {
    expect(excerpt('ok\u0000done')).toBe('okdone');
    expect(excerpt(`${'\u0000'.repeat(2_000)}tail`)).toBe('tail');
  });
});

describe('the webhook body of a payment outcome', () => {
  const event = (type: PaymentEventType, data: Partial<PaymentEvent['data']>) =>
    paymentEvent(
      { merchantId: randomUUID(), mode: 'test' },
      type,
      {
        reference: 'BOOK-42',
        status: 'success',
        orderId: 'ORD-1',
        failureReason: null,
        paidAt: '2025-03-14T09:26:52.000Z',
        metadata: { cart: 'c-1' },
        ...data,
      },
      { occurredAt: '2025-03-14T09:26:53.000Z' },
    );

  it('sends a success in dinars, with the event id and the SDK schema', () => {
    const succeeded = event('payment.succeeded', {});
    const webhook = webhookOf(succeeded);
    expect(webhook?.type).toBe('payment.success');
    const body = WebhookEvent.parse(JSON.parse(webhook!.body));
    expect(body).toEqual({
      id: succeeded.id,
      type: 'payment.success',
      createdAt: '2025-03-14T09:26:53.000Z',
      data: {
        paymentId: succeeded.data.paymentId,
        reference: 'BOOK-42',
        channel: 'AGENCY',
        amount: 1500.5,
        currency: 'DZD',
        status: 'success',
        orderId: 'ORD-1',
        paidAt: '2025-03-14T09:26:52.000Z',
        metadata: { cart: 'c-1' },
        failureReason: null,
      },
    });
  });

  it('sends a fail with its reason and no paidAt', () => {
    const failed = event('payment.failed', {
      status: 'failed',
      paidAt: null,
      failureReason: 'declined',
      channel: 'CHECKOUT',
    });
    const body = WebhookEvent.parse(JSON.parse(webhookOf(failed)!.body));
    expect(body).toMatchObject({
      type: 'payment.fail',
      data: { channel: 'CHECKOUT', status: 'failed', paidAt: null, failureReason: 'declined' },
    });
  });

  it('sends nothing for events that are no webhook', () => {
    for (const type of ['payment.created', 'payment.processing'] as const) {
      expect(webhookOf(event(type, { status: 'pending', paidAt: null }))).toBeNull();
    }
  });

  it('a refund says what it gave back and the total, in dinars', () => {
    const refunded = event('payment.refunded', { status: 'success', refundedAmount: 50_000 });
    const body = JSON.parse(webhookOf(refunded, 20_000)!.body) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(body.type).toBe('payment.refunded');
    expect(body.data).toMatchObject({ amount: 200, refundedAmount: 500, currency: 'DZD' });
    // An event written before refundAmount existed was a full refund: the total.
    expect(JSON.parse(webhookOf(refunded)!.body)).toMatchObject({ data: { amount: 500 } });
  });

  it('sends a kind only to endpoints that want it (the spec two by default); tests always', () => {
    expect(wants(undefined, 'payment.success')).toBe(true);
    expect(wants(undefined, 'payment.fail')).toBe(true);
    expect(wants(undefined, 'payment.refunded')).toBe(false);
    expect(wants(['payment.refunded'], 'payment.refunded')).toBe(true);
    expect(wants(['payment.refunded'], 'payment.success')).toBe(false);
    expect(wants(['payment.fail'], 'webhook.test')).toBe(true);
    expect(JSON.parse(testWebhookOf(ID, new Date(0)).body)).toMatchObject({
      id: ID,
      type: 'webhook.test',
      createdAt: '1970-01-01T00:00:00.000Z',
    });
  });
});
