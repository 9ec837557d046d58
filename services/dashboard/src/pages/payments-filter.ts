import { PaymentsFilterQuery, type PaymentsFilter } from '@dzpay/contracts';
import { fieldOf, queryString } from './form.ts';

/**
 * The payments list's filters as the dashboard's form sends them, and the API filter
 * they stand for. The form speaks as a person does: one reference box with "exact" or
 * "starts with", and a "created until" day that is included (the API's createdTo is
 * exclusive, so the day after is sent).
 */
export interface FilterForm {
  status?: string | undefined;
  channel?: string | undefined;
  reference?: string | undefined;
  match?: 'exact' | 'prefix' | undefined;
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
  metadataKey?: string | undefined;
  metadataValue?: string | undefined;
}

const FILTER_FIELDS = [
  'status',
  'channel',
  'reference',
  'match',
  'createdFrom',
  'createdTo',
  'metadataKey',
  'metadataValue',
] as const satisfies readonly (keyof FilterForm)[];

export type FilterField = (typeof FILTER_FIELDS)[number];

export function filterFormOf(query: unknown): FilterForm {
  const form: FilterForm = {};
  for (const name of FILTER_FIELDS) {
    const value = fieldOf(query, name);
    if (value === undefined) continue;
    if (name === 'match') form.match = value === 'prefix' ? 'prefix' : 'exact';
    else form[name] = value;
  }
  return form;
}

export type FilterOutcome =
  | { ok: true; filter: PaymentsFilter }
  | { ok: false; problems: { field: FilterField; message: string }[] };

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The day after a `YYYY-MM-DD` day, or the text unchanged when it is no day (the API says why). */
function dayAfter(value: string): string {
  if (!DAY.test(value) || Number.isNaN(Date.parse(value))) return value;
  const next = new Date(`${value}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}

/**
 * The instant a `YYYY-MM-DD` day starts in Algiers (UTC+01:00 all year): the form's days
 * are the merchant's days, as the lists and the daily report count them. Anything else
 * goes to the API as typed (it says why it refuses it).
 */
function algiersDayStart(value: string): string {
  return DAY.test(value) ? `${value}T00:00:00+01:00` : value;
}

/** Checks the form with the API's own rules (the same messages, the same limits). */
export function listFilterOf(form: FilterForm): FilterOutcome {
  const query: Record<string, string> = {};
  if (form.status) query.status = form.status;
  if (form.channel) query.channel = form.channel;
  if (form.reference)
    query[form.match === 'prefix' ? 'referencePrefix' : 'reference'] = form.reference;
  if (form.createdFrom) query.createdFrom = algiersDayStart(form.createdFrom);
  if (form.createdTo) query.createdTo = algiersDayStart(dayAfter(form.createdTo));
  // One without the other is refused by the API's rule, which names the missing one.
  if (form.metadataKey) query.metadataKey = form.metadataKey;
  if (form.metadataValue) query.metadataValue = form.metadataValue;
  const parsed = PaymentsFilterQuery.safeParse(query);
  if (parsed.success) return { ok: true, filter: parsed.data };
  return {
    ok: false,
    problems: parsed.error.issues.map((issue) => ({
      field: formFieldOf(String(issue.path[0] ?? 'reference')),
      message: issue.message,
    })),
  };
}

function formFieldOf(apiField: string): FilterField {
  if (apiField === 'referencePrefix') return 'reference';
  return (FILTER_FIELDS as readonly string[]).includes(apiField)
    ? (apiField as FilterField)
    : 'reference';
}

/** The form again as a query string (links keep the filters: pages, CSV). */
export function filterQuery(form: FilterForm, extra: Record<string, string | undefined> = {}) {
  return queryString({ ...form, match: form.reference ? form.match : undefined, ...extra });
}
