import { dzdToCentimes, type PaymentView, type WebhookEventView } from '@dzpay/contracts';

/** One line of a payment's timeline; `label` and `detail` are filled by the page in its language. */
export type TimelineEntry =
  | { at: string; kind: 'created' }
  | { at: string; kind: 'paid' }
  | { at: string; kind: 'event'; type: WebhookEventView['type']; refundCentimes?: number };

/**
 * What happened to a payment, oldest first: its creation and payment (from the payment
 * itself) and every event dzpay took in for it (from the events log). An event of the
 * payment's success and its paidAt are both shown: one is when the card network said
 * yes, the other when the partner was to be told. Events of other payments are ignored,
 * whatever the log answered.
 */
export function timelineOf(
  payment: PaymentView,
  events: readonly WebhookEventView[],
): TimelineEntry[] {
  const entries: TimelineEntry[] = [{ at: payment.createdAt, kind: 'created' }];
  if (payment.paidAt) entries.push({ at: payment.paidAt, kind: 'paid' });
  for (const event of events) {
    if (event.paymentId !== payment.id) continue;
    const amount = event.data.amount;
    const refund =
      event.type === 'payment.refunded' && typeof amount === 'number' && amount > 0
        ? { refundCentimes: dzdToCentimes(amount) }
        : {};
    entries.push({ at: event.createdAt, kind: 'event', type: event.type, ...refund });
  }
  // Stable: entries at the same instant keep the order above (created before paid).
  return entries
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => Date.parse(a.entry.at) - Date.parse(b.entry.at) || a.index - b.index)
    .map(({ entry }) => entry);
}
