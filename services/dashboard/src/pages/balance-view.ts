import {
  LOCALES,
  type BalanceFigures,
  type BalanceReply,
  type Language,
  type PayoutsPage,
} from '@dzpay/contracts';
import { escapeHtml as e } from '@dzpay/platform';
import { DashboardPaths } from '../navigation.ts';
import { BalanceMessages, type BalanceText } from './balance-messages.ts';
import { dayRangeFormHtml } from './day-range.ts';
import { queryString } from './form.ts';
import { count, dateTime, day, money } from './format.ts';
import type { PageLinks } from './pagination.ts';
import { tableHtml, type Column } from './table.ts';

/** A month (YYYY-MM) as the language names it: "mars 2026", "March 2026". */
function monthLabel(month: string, language: Language): string {
  return new Intl.DateTimeFormat(LOCALES[language], {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  }).format(new Date(`${month}-01T00:00:00Z`));
}

/** The current month and the `count − 1` before it, newest first. */
export function recentMonths(current: string, howMany: number): string[] {
  const [year, month] = current.split('-').map(Number) as [number, number];
  return Array.from({ length: howMany }, (_, back) => {
    const date = new Date(Date.UTC(year, month - 1 - back, 1));
    return date.toISOString().slice(0, 7);
  });
}

/** Money, with the minus a screen reader reads and the browser keeps left of the digits. */
const amount = (centimes: number, language: Language) =>
  `<bdi>${e(money(centimes, language))}</bdi>`;

function figuresHtml(reply: BalanceReply, language: Language, t: BalanceText): string {
  const o = reply.overall;
  const row = (label: string, centimes: number, strong = false) =>
    `<dt>${e(label)}</dt><dd>${strong ? `<strong>${amount(centimes, language)}</strong>` : amount(centimes, language)}</dd>`;
  return `<section class="card" aria-labelledby="balance-now"><h2 id="balance-now">${e(t.now)}</h2>
<dl class="fields">
${row(t.captured, o.captured)}
${row(t.fees, o.fees)}
${row(t.refunds, o.refunds)}
${row(t.net, o.net)}
${row(t.paidOut, o.paidOut)}
${row(t.balance, o.balance, true)}
${row(t.pendingRefunds, reply.pendingRefunds)}
${row(t.available, reply.available, true)}
</dl>
<p class="muted">${e(t.asOf(dateTime(reply.asOf, language)))} ${e(t.formula)}</p>
<p class="muted">${e(t.refundNote)}${o.balance < 0 ? ` ${e(t.negativeNote)}` : ''}</p></section>`;
}

export function rangeFormHtml(
  t: BalanceText,
  range: { from?: string | undefined; to?: string | undefined },
): string {
  return dayRangeFormHtml(
    { action: DashboardPaths.balance, id: 'balance', label: t.byDay, text: t },
    range,
  );
}

function daysHtml(reply: BalanceReply, language: Language, t: BalanceText): string {
  type Row = BalanceFigures & { date: string | null };
  const cash = (pick: (row: Row) => number) => (row: Row) => amount(pick(row), language);
  const columns: Column<Row>[] = [
    {
      label: t.day,
      cell: (row) => (row.date ? e(day(row.date, language)) : `<strong>${e(t.period)}</strong>`),
    },
    { label: t.payments, cell: (row) => e(count(row.capturedCount, language)), numeric: true },
    { label: t.captured, cell: cash((r) => r.captured), numeric: true },
    { label: t.fees, cell: cash((r) => r.fees), numeric: true },
    { label: t.refunds, cell: cash((r) => r.refunds), numeric: true },
    { label: t.paidOut, cell: cash((r) => r.paidOut), numeric: true },
    { label: t.balance, cell: cash((r) => r.balance), numeric: true },
  ];
  // Newest day first; quiet days are left out (a month of zero rows is a long scroll on
  // a phone), the range's totals close the table.
  const rows: Row[] = [...reply.days]
    .reverse()
    .filter((d) => d.capturedCount > 0 || d.refundCount > 0 || d.payoutCount > 0);
  const note = rows.length > 0 ? t.quietDays : t.noActivity;
  rows.push({ ...reply.totals, date: null });
  return `<section class="card" aria-labelledby="by-day"><h2 id="by-day">${e(t.byDay)}</h2>
<p class="muted">${e(t.opening(money(reply.openingBalance, language)))} ${e(note)}</p>
${tableHtml(t.byDayCaption(day(reply.from, language), day(reply.to, language)), columns, rows)}</section>`;
}

function payoutsHtml(
  page: PayoutsPage,
  links: PageLinks,
  range: { from: string; to: string },
  language: Language,
  t: BalanceText,
): string {
  if (page.payouts.length === 0 && !links.previous) {
    return `<section class="card" aria-labelledby="payouts"><h2 id="payouts">${e(t.payouts)}</h2><p>${e(t.noPayouts)}</p></section>`;
  }
  const columns: Column<PayoutsPage['payouts'][number]>[] = [
    { label: t.recordedAt, cell: (p) => e(dateTime(p.recordedAt, language)) },
    { label: t.amount, cell: (p) => amount(p.amount, language), numeric: true },
    { label: t.wallet, cell: (p) => `<bdi>${e(p.wallet)}</bdi>` },
    { label: t.reference, cell: (p) => `<bdi>${e(p.reference)}</bdi>` },
  ];
  const href = (fields: Record<string, string>) =>
    `${DashboardPaths.balance}${queryString({ ...range, ...fields })}#payouts`;
  const previous = links.previous
    ? `<a rel="prev" href="${e(href(links.previous))}">${e(t.newerPayouts)}</a>`
    : '';
  const next = links.next
    ? `<a rel="next" href="${e(href(links.next))}">${e(t.olderPayouts)}</a>`
    : '';
  const pager =
    previous || next
      ? `<nav class="pagination" aria-label="${e(t.pagination)}">${previous} ${next}</nav>`
      : '';
  return `<section class="card" aria-labelledby="payouts"><h2 id="payouts">${e(t.payouts)}</h2>
${tableHtml(t.payoutsCaption, columns, page.payouts)}${pager}</section>`;
}

function statementsHtml(months: string[], language: Language, t: BalanceText): string {
  const link = (month: string, format: 'pdf' | 'csv' | 'xlsx', label: string) =>
    `<a href="${e(`${DashboardPaths.balance}/statement${queryString({ month, format })}`)}" download aria-label="${e(label)}">${format.toUpperCase()}</a>`;
  const columns: Column<string>[] = [
    { label: t.month, cell: (month) => e(monthLabel(month, language)) },
    {
      label: t.download,
      cell: (month) => {
        const name = monthLabel(month, language);
        return `<span class="download">${link(month, 'pdf', t.pdf(name))} ${link(month, 'csv', t.csv(name))} ${link(month, 'xlsx', t.xlsx(name))}</span>`;
      },
    },
  ];
  return `<section class="card" aria-labelledby="statements"><h2 id="statements">${e(t.statements)}</h2>
<p class="muted">${e(t.statementsNote)}</p>
${tableHtml(t.statementsCaption, columns, months)}</section>`;
}

export interface BalancePageView {
  balance: BalanceReply;
  payouts: PayoutsPage;
  links: PageLinks;
  months: string[];
}

/** The whole page body: figures now, the range's days, payouts, statements. */
export function balancePageHtml(view: BalancePageView, language: Language): string {
  const t = BalanceMessages[language];
  const range = { from: view.balance.from, to: view.balance.to };
  return `${figuresHtml(view.balance, language, t)}
${rangeFormHtml(t, range)}
${daysHtml(view.balance, language, t)}
${payoutsHtml(view.payouts, view.links, range, language, t)}
${statementsHtml(view.months, language, t)}`;
}
