import { resolveReportRange } from '@dzpay/contracts';
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
