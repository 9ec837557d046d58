import { describe, expect, it } from 'vitest';
import type { PaymentRow, RefundRow, WebhookSeen } from '../oracle/evidence.ts';
import { checkWebhooks } from '../oracle/webhooks.ts';
import { MERCHANT, OTHER_MERCHANT, paid, payment, webhookOf } from './oracle-fixtures.ts';

const success = paid('a', 5);
const declined = payment('b', {
  status: 'failed',
  failure_reason: 'declined',
  cardnet_order_id: 'order-b',
});

function verdicts(
  webhooks: WebhookSeen[],
  payments: PaymentRow[],
  refunds: RefundRow[] = [],
  merchantsWantingRefunds: number[] = [],
) {
  const [bodies, outcomes, refundsAddUp] = checkWebhooks({
    webhooks,
    payments,
    refunds,
    merchantIds: [MERCHANT, OTHER_MERCHANT],
    merchantsWantingRefunds,
  });
  return { bodies: bodies!, outcomes: outcomes!, refundsAddUp: refundsAddUp! };
}

describe('webhook bodies against the database', () => {
  it('holds for a success and a fail as dzpay documents them (DZD, reason, order)', () => {
    const { bodies } = verdicts(
      [webhookOf(success, 'payment.success'), webhookOf(declined, 'payment.fail')],
      [success, declined],
    );
    expect(bodies).toMatchObject({ checked: 2, violations: [] });
  });

  it('catches an amount in centimes, another reason, a wrong status and an unknown payment', () => {
    const { bodies } = verdicts(
      [
        webhookOf(success, 'payment.success', { amount: 150_050 }),
        webhookOf(declined, 'payment.fail', { failureReason: 'expired' }),
        webhookOf(paid('c', 5), 'payment.success', { status: 'failed' }, 'event-c'),
        webhookOf(paid('ghost', 5), 'payment.success'),
      ],
      [success, declined, paid('c', 5)],
    );
    expect(bodies.violations).toEqual([
      expect.stringContaining('amount (centimes) 15005000, the row says 150050'),
      expect.stringContaining('failureReason expired, the row says declined'),
      expect.stringContaining('status failed on a success'),
      expect.stringContaining('no payment ghost'),
    ]);
  });

  it('catches an outcome that contradicts the payment, and one sent to another merchant', () => {
    const { bodies } = verdicts(
      [
        webhookOf(declined, 'payment.success'),
        { ...webhookOf(success, 'payment.success'), merchant: 1 },
      ],
      [success, declined],
    );
    expect(bodies.violations).toHaveLength(2);
    expect(bodies.violations[0]).toContain('payment.success, the payment is failed');
    expect(bodies.violations[1]).toContain(`merchant ${OTHER_MERCHANT}`);
  });
});

describe('one outcome webhook per decided payment', () => {
  it('holds with retries of one event carrying the same body', () => {
    const event = webhookOf(success, 'payment.success');
    const { outcomes } = verdicts(
      [event, { ...event, at: event.at + 5_000 }, webhookOf(declined, 'payment.fail')],
      [success, declined, payment('open', { status: 'processing' })],
    );
    expect(outcomes).toMatchObject({ checked: 2, violations: [] });
  });

  it('catches two events for one payment, a changed retry, a missing and a wrong outcome', () => {
    const event = webhookOf(success, 'payment.success');
    const changed = webhookOf(declined, 'payment.success');
    const { outcomes } = verdicts(
      [
        event,
        webhookOf(success, 'payment.success', {}, 'event-again'),
        changed,
        { ...changed, event: { ...changed.event, type: 'payment.fail' } },
      ],
      [success, declined, paid('silent', 5)],
    );
    expect(outcomes.violations).toEqual([
      expect.stringContaining(`event ${changed.event.id} arrived 2 times with different bodies`),
      expect.stringContaining('a: 2 outcome events'),
      expect.stringContaining('b (failed): the partner was told payment.success'),
      expect.stringContaining('silent (success): no outcome webhook'),
    ]);
  });
});

describe('payment.refunded webhooks add up', () => {
  const refunded = paid('r', 5, { refunded_amount: 60_000 });
  const intents: RefundRow[] = [
    {
      id: 'i1',
      payment_id: 'r',
      amount: 10_000,
      reason: 'merchant',
      state: 'succeeded',
      network_reference: '1',
    },
    {
      id: 'i2',
      payment_id: 'r',
      amount: 50_000,
      reason: 'merchant',
      state: 'succeeded',
      network_reference: '2',
    },
    {
      id: 'i3',
      payment_id: 'r',
      amount: 70_000,
      reason: 'merchant',
      state: 'failed',
      network_reference: null,
    },
  ];
  const refundEvent = (id: string, amount: number, total: number) =>
    webhookOf(
      refunded,
      'payment.refunded',
      { amount: amount / 100, refundedAmount: total / 100 },
      id,
    );

  it('holds when each refund sent one event, running totals included, in any order', () => {
    const { refundsAddUp, bodies } = verdicts(
      [refundEvent('e2', 50_000, 60_000), refundEvent('e1', 10_000, 10_000)],
      [refunded],
      intents,
      [0],
    );
    expect(refundsAddUp).toMatchObject({ checked: 1, violations: [] });
    expect(bodies.violations).toEqual([]);
  });

  it('catches a refund told twice, one never told, a wrong total, and events nobody asked for', () => {
    const wanted = verdicts(
      [refundEvent('e1', 10_000, 10_000), refundEvent('e1-again', 10_000, 20_000)],
      [refunded],
      intents,
      [0],
    );
    expect(wanted.refundsAddUp.violations).toEqual([
      expect.stringContaining('e1-again of 100 DZD matches no refund'),
      expect.stringContaining('refunds of 50000 centimes sent no payment.refunded'),
      expect.stringContaining(
        'refundedAmount 10000, 20000 for refunds 10000, 10000; the row has 60000',
      ),
    ]);
    const unwanted = verdicts([refundEvent('e1', 10_000, 10_000)], [refunded], intents, []);
    expect(unwanted.refundsAddUp.violations).toEqual([
      expect.stringContaining('sent to an endpoint that did not ask for them'),
    ]);
  });
});
