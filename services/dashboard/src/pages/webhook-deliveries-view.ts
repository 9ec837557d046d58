import type { Language, Rpc } from '@dzpay/contracts';
import { escapeHtml as e } from '@dzpay/platform';
import type { z } from 'zod';
import { DashboardPaths } from '../navigation.ts';
import { count, dateTime } from './format.ts';
import type { PageLinks } from './pagination.ts';
import { tableHtml, type Column } from './table.ts';
import { deliveriesQuery, OUTCOMES, type DeliveriesForm } from './webhook-deliveries-filter.ts';
import { DeliveriesMessages, type DeliveriesText } from './webhook-deliveries-messages.ts';

export type DeliveryItem = z.infer<typeof Rpc.webhookDeliveriesList.reply>['deliveries'][number];

export interface DeliveriesPageView {
  language: Language;
  form: DeliveriesForm;
  /** Why there is no list (a filter refused, the dispatcher down), in the page's language. */
  problems: string[];
  deliveries: DeliveryItem[];
  links?: PageLinks;
  csrfField: string;
  /** Where a resend comes back to: this page, its filters and its page. */
  returnTo: string;
  /** Whether the user's role may resend (the core refuses it anyway otherwise). */
  mayResend: (path: string) => boolean;
}

const resendPath = (id: string) =>
  `${DashboardPaths.webhookDeliveries}/${encodeURIComponent(id)}/replay`;

const paymentPath = (id: string) => `${DashboardPaths.payments}/${encodeURIComponent(id)}`;

const time = (iso: string, language: Language) =>
  `<time datetime="${e(iso)}">${e(dateTime(iso, language))}</time>`;

const option = (value: string, label: string, selected: string | undefined) =>
  `<option value="${e(value)}"${value === (selected ?? '') ? ' selected' : ''}>${e(label)}</option>`;

function filtersHtml(text: DeliveriesText, form: DeliveriesForm): string {
  const input = (name: keyof DeliveriesForm, label: string, type: string, extra = '') =>
    `<div class="field"><label for="d-${name}">${e(label)}</label>` +
    `<input id="d-${name}" name="${name}" type="${type}" value="${e(form[name] ?? '')}"${extra}></div>`;
  const outcomes = OUTCOMES.map((o) => option(o, text.outcomes[o], form.outcome)).join('');
  const types = (Object.keys(text.types) as (keyof DeliveriesText['types'])[])
    .map((type) => option(type, text.types[type], form.type))
    .join('');
  // Folded on a first visit (a phone shows the deliveries first), open once filtering.
  const open = Object.values(form).some((value) => value !== undefined) ? ' open' : '';
  return `<details class="card filters"${open}><summary>${e(text.filters)}</summary>
<form method="get" action="${DashboardPaths.webhookDeliveries}" class="stack filters" role="search" aria-label="${e(text.filters)}">
<div class="field"><label for="d-outcome">${e(text.outcome)}</label><select id="d-outcome" name="outcome">${option('', text.anyOutcome, form.outcome)}${outcomes}</select></div>
<div class="field"><label for="d-type">${e(text.type)}</label><select id="d-type" name="type">${option('', text.anyType, form.type)}${types}</select></div>
${input('paymentId', text.paymentId, 'text', ' maxlength="36" autocomplete="off" spellcheck="false" dir="ltr"')}
${input('from', text.from, 'date')}
${input('to', text.to, 'date')}
<p class="muted">${e(text.daysAlgiers)}</p>
<div class="actions"><button type="submit">${e(text.apply)}</button> <a href="${DashboardPaths.webhookDeliveries}">${e(text.clear)}</a></div>
</form></details>`;
}

/** Each attempt on a line: when, what the server answered (or that none came), the error. */
function attemptsHtml(delivery: DeliveryItem, text: DeliveriesText, language: Language): string {
  if (delivery.attempts.length === 0) return `<span class="muted">${e(text.noAttempt)}</span>`;
  const items = delivery.attempts
    .map((attempt) => {
      const status = attempt.statusCode === null ? null : `HTTP ${attempt.statusCode}`;
      // A code reads left to right in Arabic too, on one line; an error that only repeats
      // it is left out.
      const answer =
        status === null
          ? e(text.noAnswer)
          : `<bdi dir="ltr">${status.replace(' ', '&nbsp;')}</bdi>`;
      const error =
        attempt.error && attempt.error !== status
          ? ` — <bdi dir="ltr">${e(attempt.error)}</bdi>`
          : '';
      return `<li><span class="sr-only">${e(text.attempt)} ${count(attempt.number, language)}: </span>${time(attempt.startedAt, language)} · ${answer}${error}</li>`;
    })
    .join('');
  const next = delivery.nextAttemptAt
    ? `<p class="muted">${e(text.nextAttemptAt)}: ${time(delivery.nextAttemptAt, language)}</p>`
    : '';
  return `<ol class="attempts">${items}</ol>${next}`;
}

function stateHtml(delivery: DeliveryItem, text: DeliveriesText): string {
  const tone = delivery.state === 'success' ? ' ok' : delivery.state === 'fail' ? ' bad' : '';
  return `<span class="badge${tone}">${e(text.states[delivery.state])}</span>`;
}

function columns(view: DeliveriesPageView, text: DeliveriesText): Column<DeliveryItem>[] {
  const { language } = view;
  return [
    { label: text.made, cell: (d) => time(d.createdAt, language) },
    { label: text.type, cell: (d) => e(text.types[d.eventType]) },
    {
      label: text.payment,
      cell: (d) =>
        d.paymentId
          ? `<a href="${e(paymentPath(d.paymentId))}"><bdi>${e(d.reference ?? d.paymentId)}</bdi></a>`
          : `<span class="muted">${e(text.noPayment)}</span>`,
    },
    { label: text.outcome, cell: (d) => stateHtml(d, text) },
    { label: text.attempts, cell: (d) => attemptsHtml(d, text, language) },
    {
      label: text.resend,
      cell: (d) =>
        view.mayResend(resendPath(d.id))
          ? `<form method="post" action="${e(resendPath(d.id))}" class="inline">${view.csrfField}<input type="hidden" name="back" value="${e(view.returnTo)}"><button type="submit" class="secondary" aria-label="${e(`${text.resend}: ${text.types[d.eventType]} ${d.reference ?? ''}`.trim())}">${e(text.resend)}</button></form>`
          : '',
    },
  ];
}

function paginationHtml(text: DeliveriesText, form: DeliveriesForm, links?: PageLinks): string {
  if (!links || (!links.next && !links.previous)) return '';
  const href = (fields: Record<string, string>) =>
    `${DashboardPaths.webhookDeliveries}${deliveriesQuery(form, fields)}`;
  const previous = links.previous
    ? `<a rel="prev" href="${e(href(links.previous))}">${e(text.previous)}</a>`
    : '';
  const next = links.next ? `<a rel="next" href="${e(href(links.next))}">${e(text.next)}</a>` : '';
  return `<nav class="pagination" aria-label="${e(text.pagination)}">${previous} ${next}</nav>`;
}

/** The page's body: the lead, the filters, what went wrong, the list and its pages. */
export function deliveriesPageHtml(view: DeliveriesPageView): string {
  const text = DeliveriesMessages[view.language];
  const problems = view.problems.length
    ? `<div class="flash error" role="alert"><ul>${view.problems.map((p) => `<li>${e(p)}</li>`).join('')}</ul></div>`
    : '';
  const list = view.deliveries.length
    ? tableHtml(text.title, columns(view, text), view.deliveries)
    : view.problems.length
      ? ''
      : `<p class="empty">${e(text.none)}</p>`;
  return `<p>${e(text.lead)} <a href="${DashboardPaths.webhooks}">${e(text.backToSettings)}</a></p>
${filtersHtml(text, view.form)}
${problems}
${list}
${paginationHtml(text, view.form, view.links)}`;
}
