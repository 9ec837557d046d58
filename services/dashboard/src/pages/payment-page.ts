import { randomUUID } from 'node:crypto';
import {
  Rpc,
  type DeliveryView,
  type Language,
  type PaymentView,
  type WebhookEventView,
} from '@dzpay/contracts';
import { escapeHtml as e, isAppError } from '@dzpay/platform';
import { DashboardPaths } from '../navigation.ts';
import type { PageKit } from '../page-kit.ts';
import type { Ask } from './ask.ts';
import { count, dateTime, money } from './format.ts';
import { failureReasonHtml, paymentPath } from './payments-list-page.ts';
import { PaymentsMessages, type PaymentsText } from './payments-messages.ts';
import { statusLabel } from './status-label.ts';
import { timelineOf, type TimelineEntry } from './payment-timeline.ts';
import { refusalText } from './refusal.ts';
import { tableHtml, type Column } from './table.ts';

/** Most events of one payment the timeline reads (a payment has a handful). */
const EVENTS_LIMIT = 100;

/** GET /dashboard/payments/:id: details, timeline, webhook deliveries, and the actions. */
export function registerPaymentPage(kit: PageKit, ask: Ask): void {
  kit.get(`${DashboardPaths.payments}/:id`, async (context) => {
    const text = PaymentsMessages[context.language];
    const { id } = context.request.params as { id: string };
    let payment: PaymentView;
    try {
      payment = await ask(Rpc.paymentsGet, { ...context.scope, id });
    } catch (error) {
      // Another merchant's payment, or the other mode's, is as unknown as a made-up id.
      const notFound = isAppError(error) && error.code === 'PAYMENT_INSTANCE404_NOT_FOUND';
      context.reply.code(notFound ? 404 : 503);
      const message = notFound ? text.notFound : refusalText(error, context.language);
      return context.page(
        message,
        `<p><a href="${DashboardPaths.payments}">${e(text.backToPayments)}</a></p>`,
      );
    }
    const [events, deliveries] = await Promise.all([
      partOf(
        ask(Rpc.webhookEventsList, {
          ...context.scope,
          limit: EVENTS_LIMIT,
          paymentId: payment.id,
        }),
      ),
      partOf(ask(Rpc.deliveriesOfPayment, { ...context.scope, paymentId: payment.id })),
    ]);
    const view: PaymentPageView = {
      language: context.language,
      payment,
      events: events?.events ?? null,
      deliveries: deliveries?.deliveries ?? null,
      csrfField: context.csrfField(),
      idempotencyKey: randomUUID(),
      // Only the forms the user's role may send (the core refuses the others anyway).
      mayPost: (path) => context.allows?.('POST', path) ?? true,
    };
    return context.page(text.paymentTitle(payment.reference), paymentPageHtml(view));
  });
}

/** A part of the page whose service may be down: the rest of the page still shows. */
async function partOf<T>(answer: Promise<T>): Promise<T | null> {
  try {
    return await answer;
  } catch (error) {
    if (isAppError(error)) return null;
    throw error;
  }
}

interface PaymentPageView {
  language: Language;
  payment: PaymentView;
  /** null: the events log did not answer. */
  events: WebhookEventView[] | null;
  /** null: the webhook dispatcher did not answer. */
  deliveries: DeliveryView[] | null;
  csrfField: string;
  /** A fresh key per rendered refund form: submitting it twice refunds once. */
  idempotencyKey: string;
  /** Whether the user's role may send a form to this path (permissions.ts). */
  mayPost: (path: string) => boolean;
}

const time = (iso: string, language: Language) =>
  `<time datetime="${e(iso)}">${e(dateTime(iso, language))}</time>`;

function detailsHtml(payment: PaymentView, text: PaymentsText, language: Language): string {
  const rows: [string, string | null][] = [
    [text.reference, e(payment.reference)],
    [
      text.status,
      `<span class="status status-${payment.status}">${e(statusLabel(payment, text))}</span>`,
    ],
    [text.amount, e(money(payment.amount, language))],
    // The merchant API's fees are whole DZD.
    [text.fees, e(money(payment.fees * 100, language))],
    // Paid or not yet: the same amount, said as what happened.
    [payment.paidAt ? text.total : text.totalDue, e(money(payment.total, language))],
    [
      text.refundedAmount,
      payment.refundedAmount > 0 ? e(money(payment.refundedAmount, language)) : null,
    ],
    [text.created, time(payment.createdAt, language)],
    [text.paidAt, payment.paidAt ? time(payment.paidAt, language) : null],
    [text.expiresAt, payment.paidAt ? null : time(payment.expiresAt, language)],
    [text.orderId, payment.orderId ? `<code>${e(payment.orderId)}</code>` : null],
    [text.approvalCode, payment.approvalCode ? e(payment.approvalCode) : null],
    [text.maskedPan, payment.maskedPan ? `<bdi dir="ltr">${e(payment.maskedPan)}</bdi>` : null],
    [
      text.failureReason,
      payment.failureReason ? failureReasonHtml(payment.failureReason, text) : null,
    ],
    [text.payerLanguage, e(text.languages[payment.language])],
    [
      text.successUrl,
      payment.successUrl ? `<code dir="ltr">${e(payment.successUrl)}</code>` : null,
    ],
    [
      text.failureUrl,
      payment.failureUrl ? `<code dir="ltr">${e(payment.failureUrl)}</code>` : null,
    ],
    [text.id, `<code>${e(payment.id)}</code>`],
  ];
  const items = rows
    .filter((row): row is [string, string] => row[1] !== null)
    .map(([label, value]) => `<dt>${e(label)}</dt><dd>${value}</dd>`)
    .join('\n');
  const metadata = payment.metadata
    ? `<h3>${e(text.metadata)}</h3><pre dir="ltr"><code>${e(JSON.stringify(payment.metadata, null, 2))}</code></pre>`
    : '';
  return `<section class="card" aria-labelledby="details"><h2 id="details">${e(text.details)}</h2><dl class="fields">${items}</dl>${metadata}</section>`;
}

function timelineHtml(
  payment: PaymentView,
  events: WebhookEventView[] | null,
  text: PaymentsText,
  language: Language,
): string {
  const label = (entry: TimelineEntry) => {
    if (entry.kind === 'created') return text.timelineCreated;
    if (entry.kind === 'paid') return text.timelinePaid;
    const refund = entry.refundCentimes
      ? ` (${text.refundOf(money(entry.refundCentimes, language))})`
      : '';
    return `${text.eventTypes[entry.type]}${refund}`;
  };
  const items = timelineOf(payment, events ?? [])
    .map((entry) => `<li>${time(entry.at, language)} — ${e(label(entry))}</li>`)
    .join('\n');
  const note = events === null ? `<p class="muted">${e(text.partUnavailable)}</p>` : '';
  return `<section class="card" aria-labelledby="timeline"><h2 id="timeline">${e(text.timeline)}</h2><ol class="timeline">${items}</ol>${note}</section>`;
}

function attemptsHtml(delivery: DeliveryView, text: PaymentsText, language: Language): string {
  if (delivery.attempts.length === 0) return `<p>${e(text.noAttempt)}</p>`;
  const columns: Column<DeliveryView['attempts'][number]>[] = [
    { label: text.attempt, cell: (attempt) => count(attempt.number, language), numeric: true },
    { label: text.startedAt, cell: (attempt) => time(attempt.startedAt, language) },
    { label: text.httpStatus, cell: (attempt) => String(attempt.statusCode ?? '—'), numeric: true },
    {
      label: text.latency,
      cell: (attempt) =>
        attempt.latencyMs === null ? '—' : e(text.milliseconds(count(attempt.latencyMs, language))),
      numeric: true,
    },
    { label: text.error, cell: (attempt) => e(attempt.error ?? '') },
  ];
  const caption = `${text.eventTypes[delivery.eventType]} · ${text.deliveryStates[delivery.state]}`;
  return tableHtml(caption, columns, delivery.attempts);
}

function replayFormHtml(view: PaymentPageView, delivery: DeliveryView, text: PaymentsText) {
  const action = `${paymentPath(view.payment.id)}/deliveries/${encodeURIComponent(delivery.id)}/replay`;
  if (!view.mayPost(action)) return '';
  return `<form method="post" action="${action}">${view.csrfField}<button type="submit">${e(text.replay)}</button></form>`;
}

function deliveriesHtml(view: PaymentPageView, text: PaymentsText): string {
  const { deliveries, language } = view;
  let body: string;
  if (deliveries === null) body = `<p class="muted">${e(text.partUnavailable)}</p>`;
  else if (deliveries.length === 0) body = `<p>${e(text.noDeliveries)}</p>`;
  else
    body = deliveries
      .map(
        (
          delivery,
        ) => `<article class="delivery" data-delivery-id="${e(delivery.id)}" data-event-id="${e(delivery.eventId)}">
${attemptsHtml(delivery, text, language)}
${delivery.nextAttemptAt ? `<p>${e(text.nextAttemptAt)}: ${time(delivery.nextAttemptAt, language)}</p>` : ''}
${replayFormHtml(view, delivery, text)}
</article>`,
      )
      .join('\n');
  return `<section class="card" aria-labelledby="deliveries"><h2 id="deliveries">${e(text.deliveries)}</h2>${body}</section>`;
}

function actionsHtml(view: PaymentPageView, text: PaymentsText): string {
  const { payment, language } = view;
  const action = (name: string) => `${paymentPath(payment.id)}/${name}`;
  const parts: string[] = [];
  const remaining = payment.total - payment.refundedAmount;
  if (payment.status === 'success' && remaining > 0 && view.mayPost(action('refund/confirm'))) {
    parts.push(`<section class="card" aria-labelledby="refund"><h2 id="refund">${e(text.refund)}</h2>
<form method="post" action="${action('refund/confirm')}" class="refund">${view.csrfField}
<input type="hidden" name="idempotencyKey" value="${e(view.idempotencyKey)}">
<div class="field"><label for="refund-amount">${e(text.refundAmount)}</label>
<input id="refund-amount" name="amount" type="text" inputmode="decimal" autocomplete="off" required aria-describedby="refund-hint"></div>
<p id="refund-hint" class="muted">${e(text.refundHint(money(remaining, language), money(payment.fees * 100, language)))}</p>
<button type="submit">${e(text.refundSubmit)}</button></form></section>`);
  }
  if (payment.status === 'created' && view.mayPost(action('cancel'))) {
    parts.push(`<section class="card" aria-labelledby="cancel"><h2 id="cancel">${e(text.cancel)}</h2>
<p>${e(text.cancelHint)}</p>
<form method="post" action="${action('cancel')}">${view.csrfField}<button type="submit" class="danger">${e(text.cancelSubmit)}</button></form></section>`);
  }
  if (
    (payment.status === 'success' || payment.status === 'refunded') &&
    view.mayPost(action('receipt'))
  ) {
    const languages = (['', 'ar', 'fr', 'en'] as const)
      .map(
        (code) =>
          `<option value="${code}">${e(code ? text.languages[code] : text.payerLanguageChoice)}</option>`,
      )
      .join('');
    parts.push(`<section class="card" aria-labelledby="receipt"><h2 id="receipt">${e(text.receipt)}</h2>
<form method="post" action="${action('receipt')}">${view.csrfField}
<div class="field"><label for="receipt-email">${e(text.receiptEmail)}</label><input id="receipt-email" name="email" type="email" required maxlength="254" autocomplete="email" dir="ltr"></div>
<div class="field"><label for="receipt-language">${e(text.receiptLanguage)}</label><select id="receipt-language" name="language">${languages}</select></div>
<button type="submit">${e(text.receiptSubmit)}</button></form></section>`);
  }
  return parts.join('\n');
}

function paymentPageHtml(view: PaymentPageView): string {
  const text = PaymentsMessages[view.language];
  const { payment, language } = view;
  return `<p class="back"><a href="${DashboardPaths.payments}">${e(text.backToPayments)}</a></p>
${detailsHtml(payment, text, language)}
${actionsHtml(view, text)}
${timelineHtml(payment, view.events, text, language)}
${deliveriesHtml(view, text)}`;
}
