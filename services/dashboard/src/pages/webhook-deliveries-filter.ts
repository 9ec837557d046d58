import { WebhookType, type MerchantScope, type Rpc } from '@dzpay/contracts';
import type { z } from 'zod';
import { fieldOf, queryString } from './form.ts';
import type { DeliveriesText } from './webhook-deliveries-messages.ts';

/**
 * The deliveries page's filters as its form sends them, and the dispatcher's query they
 * stand for: the form's days are Algiers days, as the dispatcher counts them.
 */

type ListRequest = z.infer<typeof Rpc.webhookDeliveriesList.request>;
type DeliveriesFilter = Pick<ListRequest, 'outcome' | 'type' | 'paymentId' | 'from' | 'to'>;
type Outcome = NonNullable<ListRequest['outcome']>;

export interface DeliveriesForm {
  outcome?: string | undefined;
  type?: string | undefined;
  paymentId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

const FORM_FIELDS = ['outcome', 'type', 'paymentId', 'from', 'to'] as const;
export const OUTCOMES: readonly Outcome[] = ['delivered', 'failing', 'given_up'];

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A day that exists: `2026-02-30` and `2026-13-01` are none (the first rolls over). */
function isDay(value: string): boolean {
  if (!DAY.test(value)) return false;
  const at = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().startsWith(value);
}

export function deliveriesFormOf(query: unknown): DeliveriesForm {
  const form: DeliveriesForm = {};
  for (const name of FORM_FIELDS) {
    const value = fieldOf(query, name);
    if (value !== undefined) form[name] = value;
  }
  return form;
}

/** The filter the form asks for, or why not, each problem in the page's language. */
export function deliveriesFilterOf(
  form: DeliveriesForm,
  text: DeliveriesText,
): { ok: true; filter: DeliveriesFilter } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const filter: DeliveriesFilter = {};
  if (form.outcome !== undefined) {
    if ((OUTCOMES as readonly string[]).includes(form.outcome))
      filter.outcome = form.outcome as Outcome;
    else problems.push(text.invalidChoice(text.outcome));
  }
  if (form.type !== undefined) {
    const type = WebhookType.safeParse(form.type);
    if (type.success) filter.type = type.data;
    else problems.push(text.invalidChoice(text.type));
  }
  if (form.paymentId !== undefined) {
    if (UUID.test(form.paymentId)) filter.paymentId = form.paymentId.toLowerCase();
    else problems.push(text.invalidPaymentId);
  }
  for (const [name, label] of [
    ['from', text.from],
    ['to', text.to],
  ] as const) {
    const value = form[name];
    if (value === undefined) continue;
    if (isDay(value)) filter[name] = value;
    else problems.push(text.invalidDay(label));
  }
  if (filter.from && filter.to && filter.from > filter.to) problems.push(text.reversedDays);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, filter };
}

/** The dispatcher's request for one page of the filtered list. */
export function deliveriesRequest(
  scope: MerchantScope,
  filter: DeliveriesFilter,
  limit: number,
  cursor: string | undefined,
): ListRequest {
  return { ...scope, ...filter, limit, ...(cursor ? { cursor } : {}) };
}

/** The form again as a query string (page links keep the filters). */
export function deliveriesQuery(form: DeliveriesForm, extra: Record<string, string> = {}) {
  return queryString({ ...form, ...extra });
}
