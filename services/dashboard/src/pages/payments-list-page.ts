import {
  actionCodeOfDecline,
  CheckoutStatus,
  FailureReasons,
  Rpc,
  type Language,
  type PaymentListItem,
  type PaymentsFilter,
} from '@dzpay/contracts';
import { escapeHtml as e, isAppError } from '@dzpay/platform';
import { DashboardPaths } from '../navigation.ts';
import type { PageContext, PageKit } from '../page-kit.ts';
import type { Ask } from './ask.ts';
import { dateTime, money } from './format.ts';
import { fieldOf } from './form.ts';
import {
  filterFormOf,
  filterQuery,
  listFilterOf,
  type FilterField,
  type FilterForm,
} from './payments-filter.ts';
import { pageLinks, type PageLinks } from './pagination.ts';
import { statusLabel } from './status-label.ts';
import { PaymentsMessages, type PaymentsText } from './payments-messages.ts';
import { refusalText } from './refusal.ts';
import { tableHtml, type Column } from './table.ts';

/** Payments one page of the dashboard's list shows. */
const PAYMENTS_PAGE_SIZE = 25;

export const paymentPath = (id: string) => `${DashboardPaths.payments}/${encodeURIComponent(id)}`;

/** GET /dashboard/payments: the filtered list, newest first, a page at a time. */
export function registerPaymentsList(kit: PageKit, ask: Ask): void {
  kit.get(DashboardPaths.payments, async (context) => {
    const text = PaymentsMessages[context.language];
    const query = context.request.query;
    const form = filterFormOf(query);
    const cursor = fieldOf(query, 'cursor');
    const outcome = listFilterOf(form);
    const view: PaymentsListView = { language: context.language, form, problems: [], rows: [] };
    if (!outcome.ok) {
      view.problems = outcome.problems.map((p) =>
        text.invalidFilter(labelOf(text, p.field), p.message),
      );
      context.reply.code(400);
    } else {
      try {
        const page = await listPayments(ask, context, outcome.filter, cursor);
        view.rows = page.payments;
        view.links = pageLinks(cursor, fieldOf(query, 'back'), page.nextCursor);
      } catch (error) {
        view.problems = [refusalText(error, context.language)];
        context.reply.code(
          isAppError(error) && error.code === 'SERVICE503_UNAVAILABLE' ? 503 : 400,
        );
      }
    }
    return context.page(text.paymentsTitle, paymentsListHtml(view));
  });
}

function listPayments(ask: Ask, context: PageContext, filter: PaymentsFilter, cursor?: string) {
  return ask(Rpc.paymentsList, {
    ...context.scope,
    limit: PAYMENTS_PAGE_SIZE,
    ...(cursor ? { cursor } : {}),
    ...filter,
  });
}

interface PaymentsListView {
  language: Language;
  form: FilterForm;
  /** Why there is no list (a filter the API refuses, a service down), in the page's language. */
  problems: string[];
  rows: PaymentListItem[];
  links?: PageLinks;
}

function labelOf(text: PaymentsText, field: FilterField): string {
  const labels: Record<FilterField, string> = {
    status: text.status,
    channel: text.channel,
    reference: text.reference,
    match: text.referenceMatch,
    createdFrom: text.createdFrom,
    createdTo: text.createdTo,
    metadataKey: text.metadataKey,
    metadataValue: text.metadataValue,
  };
  return labels[field];
}

const option = (value: string, label: string, selected: string | undefined) =>
  `<option value="${e(value)}"${value === (selected ?? '') ? ' selected' : ''}>${e(label)}</option>`;

function filtersHtml(text: PaymentsText, form: FilterForm): string {
  const input = (name: keyof FilterForm, label: string, type = 'text', extra = '') =>
    `<div class="field"><label for="f-${name}">${e(label)}</label>` +
    `<input id="f-${name}" name="${name}" type="${type}" value="${e(form[name] ?? '')}"${extra}></div>`;
  const statuses = CheckoutStatus.options
    .map((status) => option(status, text.statuses[status], form.status))
    .join('');
  const channels = (['CHECKOUT', 'AGENCY'] as const)
    .map((channel) => option(channel, text.channels[channel], form.channel))
    .join('');
  // Folded on a first visit (a phone shows the payments first), open once filtering.
  const open = Object.values(form).some((value) => value !== undefined) ? ' open' : '';
  return `<details class="card filters"${open}><summary>${e(text.filters)}</summary>
<form method="get" action="${DashboardPaths.payments}" class="stack filters" role="search" aria-label="${e(text.filters)}">
<div class="field"><label for="f-status">${e(text.status)}</label><select id="f-status" name="status">${option('', text.anyStatus, form.status)}${statuses}</select></div>
<div class="field"><label for="f-channel">${e(text.channel)}</label><select id="f-channel" name="channel">${option('', text.anyChannel, form.channel)}${channels}</select></div>
${input('reference', text.reference, 'search', ' maxlength="255" autocomplete="off"')}
<div class="field"><label for="f-match">${e(text.referenceMatch)}</label><select id="f-match" name="match">${option('exact', text.exact, form.match)}${option('prefix', text.prefix, form.match)}</select></div>
${input('createdFrom', text.createdFrom, 'date')}
${input('createdTo', text.createdTo, 'date')}
${input('metadataKey', text.metadataKey, 'text', ' maxlength="255" autocomplete="off"')}
${input('metadataValue', text.metadataValue, 'text', ' maxlength="1000" autocomplete="off"')}
<p class="muted">${e(text.datesAlgiers)}</p>
<div class="actions"><button type="submit">${e(text.apply)}</button> <a href="${DashboardPaths.payments}">${e(text.clear)}</a></div>
</form></details>`;
}

function paymentColumns(text: PaymentsText, language: Language): Column<PaymentListItem>[] {
  return [
    {
      label: text.reference,
      cell: (payment) => `<a href="${paymentPath(payment.id)}">${e(payment.reference)}</a>`,
    },
    {
      label: text.status,
      cell: (payment) =>
        `<span class="badge">${e(statusLabel(payment, text))}</span>` +
        // Why it failed, in the page's language; expired and cancelled say it already.
        (payment.status === 'failed' && payment.failureReason
          ? ` <small class="muted">${failureReasonHtml(payment.failureReason, text)}</small>`
          : ''),
    },
    { label: text.amount, cell: (payment) => e(money(payment.amount, language)), numeric: true },
    { label: text.channel, cell: (payment) => e(text.channels[payment.channel]) },
    {
      label: text.created,
      cell: (payment) =>
        `<time datetime="${e(payment.createdAt)}">${e(dateTime(payment.createdAt, language))}</time>`,
    },
  ];
}

/**
 * Why a payment failed, in the page's language: the reasons dzpay writes, and a decline's
 * action code said as what it means (given alone, or through a card network text known to
 * mean it, whatever language that came in). Other network words are shown as they came,
 * isolated from the page's direction.
 */
export function failureReasonHtml(reason: string, text: PaymentsText): string {
  const known = text.failureReasons;
  if (reason === FailureReasons.expired) return e(known.expired);
  if (reason === FailureReasons.cancelled) return e(known.cancelled);
  if (reason === FailureReasons.alreadyPaid) return e(known.alreadyPaid);
  if (reason === FailureReasons.registrationFailed) return e(known.registration);
  if (reason === FailureReasons.declined) return e(known.declined);
  const code = actionCodeOfDecline(reason);
  if (code) return e(known.declinedCode(code));
  return `${e(known.networkSaid)} <bdi>${e(reason)}</bdi>`;
}

function paginationHtml(text: PaymentsText, form: FilterForm, links: PageLinks | undefined) {
  if (!links || (!links.next && !links.previous)) return '';
  const href = (fields: Record<string, string>) =>
    `${DashboardPaths.payments}${filterQuery(form, fields)}`;
  const previous = links.previous
    ? `<a rel="prev" href="${e(href(links.previous))}">${e(text.previous)}</a>`
    : '';
  const next = links.next ? `<a rel="next" href="${e(href(links.next))}">${e(text.next)}</a>` : '';
  return `<nav class="pagination" aria-label="${e(text.pagination)}">${previous} ${next}</nav>`;
}

function paymentsListHtml(view: PaymentsListView): string {
  const text = PaymentsMessages[view.language];
  const problems = view.problems.length
    ? `<div class="flash error" role="alert"><ul>${view.problems.map((p) => `<li>${e(p)}</li>`).join('')}</ul></div>`
    : '';
  const exportHref = `${DashboardPaths.payments}/export${filterQuery(view.form)}`;
  const standardHref = `${DashboardPaths.payments}/export${filterQuery(view.form, { dialect: 'standard' })}`;
  const xlsxHref = `${DashboardPaths.payments}/export${filterQuery(view.form, { format: 'xlsx' })}`;
  const table = view.rows.length
    ? tableHtml(text.paymentsTitle, paymentColumns(text, view.language), view.rows)
    : view.problems.length
      ? ''
      : `<p class="empty">${e(text.noPayments)}</p>`;
  return `${filtersHtml(text, view.form)}
${problems}
${table}
${paginationHtml(text, view.form, view.links)}
<p class="download"><a href="${e(exportHref)}" download>${e(text.downloadCsv)}</a>
<a href="${e(standardHref)}" download>${e(text.downloadStandardCsv)}</a>
<a href="${e(xlsxHref)}" download>${e(text.downloadXlsx)}</a></p>`;
}
