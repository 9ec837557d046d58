import { resolveReportRange } from '@dzpay/contracts';
import { escapeHtml as e } from '@dzpay/platform';
import type { PageContext } from '../page-kit.ts';
import { fieldOf } from './form.ts';

/**
 * The days a page's query asks for with `from` and `to` (defaults filled: the last 30),
 * or a null range when they are not dates or not a range; the query as given, for the form.
 */
export function dayRangeOf(context: PageContext, now: Date) {
  const query = {
    from: fieldOf(context.request.query, 'from'),
    to: fieldOf(context.request.query, 'to'),
  };
  const valid = (value: string | undefined) =>
    value === undefined || /^\d{4}-\d{2}-\d{2}$/.test(value);
  const range = valid(query.from) && valid(query.to) ? resolveReportRange(query, now) : null;
  return { query, range: range?.ok ? range.value : null };
}

/**
 * The form that asks a page for its days: two date inputs (their ids prefixed with `id`),
 * a show button, and the note that days are Algiers days; filled with the range asked.
 */
export function dayRangeFormHtml(
  form: {
    action: string;
    id: string;
    label: string;
    text: { from: string; to: string; show: string; daysInAlgiers: string };
  },
  range: { from?: string | undefined; to?: string | undefined },
): string {
  const { text } = form;
  const input = (name: 'from' | 'to', label: string) =>
    `<div><label for="${form.id}-${name}">${e(label)}</label><input id="${form.id}-${name}" name="${name}" type="date" value="${e(range[name] ?? '')}"></div>`;
  return `<form method="get" action="${form.action}" class="card actions" aria-label="${e(form.label)}">
${input('from', text.from)}${input('to', text.to)}
<button type="submit">${e(text.show)}</button>
<p class="muted">${e(text.daysInAlgiers)}</p></form>`;
}
