import {
  CreatePaymentLinkBody,
  dzdToCentimes,
  isJsonObject,
  jsonDepth,
  Language,
  MAX_METADATA_DEPTH,
  type CreatePaymentLinkInput,
} from '@dzpay/contracts';
import { isAppError } from '@dzpay/platform';
import { parseTypedDzd } from './dzd-amount.ts';
import { fieldOf } from './form.ts';
import { money } from './format.ts';
import { PaymentLinkPageMessages } from './payment-link-messages.ts';
import { refusalText } from './refusal.ts';

/** Algeria keeps UTC+1 all year: a datetime-local box is read there, as the merchant means it. */
const ALGERIA_OFFSET = '+01:00';

/** The form's fields as typed, to show them back with its problems. */
export interface PaymentLinkFormValues {
  label: string;
  kind: 'fixed' | 'open';
  amount: string;
  minAmount: string;
  maxAmount: string;
  singleUse: boolean;
  expiresAt: string;
  language: Language;
  metadata: string;
}

export function formValuesOf(form: unknown, fallback: Language): PaymentLinkFormValues {
  const language = Language.safeParse(fieldOf(form, 'language'));
  return {
    label: fieldOf(form, 'label') ?? '',
    kind: fieldOf(form, 'kind') === 'open' ? 'open' : 'fixed',
    amount: fieldOf(form, 'amount') ?? '',
    minAmount: fieldOf(form, 'minAmount') ?? '',
    maxAmount: fieldOf(form, 'maxAmount') ?? '',
    singleUse: fieldOf(form, 'singleUse') !== undefined,
    expiresAt: fieldOf(form, 'expiresAt') ?? '',
    language: language.success ? language.data : fallback,
    metadata: fieldOf(form, 'metadata') ?? '',
  };
}

/**
 * The new link form turned into the body POST /api/v1/payment-links takes (amounts in
 * DZD as the merchant writes them, read as the refund form reads them, ambiguous ones
 * refused; the expiry in Algeria time; metadata as JSON), checked by the same schema;
 * its problems in the page's language.
 */
export function parsePaymentLinkForm(
  values: PaymentLinkFormValues,
  language: Language,
): { ok: true; link: CreatePaymentLinkBody } | { ok: false; problems: string[] } {
  const t = PaymentLinkPageMessages[language];
  const problems: string[] = [];
  const centimes = (typed: string, field: string): number | null => {
    if (!typed) {
      problems.push(t.amountMissing(field));
      return null;
    }
    const read = parseTypedDzd(typed);
    if (read.ok) return dzdToCentimes(read.dzd);
    problems.push(
      read.reason === 'ambiguous'
        ? t.amountAmbiguous(field, typed)
        : t.amountNotNumber(field, typed),
    );
    return null;
  };
  if (!values.label) problems.push(t.labelMissing);
  const amounts =
    values.kind === 'fixed'
      ? { amount: centimes(values.amount, t.fixedLabel) }
      : {
          minAmount: centimes(values.minAmount, t.minLabel),
          maxAmount: centimes(values.maxAmount, t.maxLabel),
        };
  const expiresAt = values.expiresAt ? withOffset(values.expiresAt) : null;
  if (expiresAt === '') problems.push(t.expiryInvalid);
  let metadata: Record<string, unknown> | null = null;
  if (values.metadata) {
    try {
      const parsed: unknown = JSON.parse(values.metadata);
      if (!isJsonObject(parsed) || jsonDepth(parsed) > MAX_METADATA_DEPTH) throw new Error();
      metadata = parsed;
    } catch {
      problems.push(t.metadataInvalid);
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  const link = {
    label: values.label,
    ...amounts,
    singleUse: values.singleUse,
    expiresAt,
    language: values.language,
    metadata,
  } as CreatePaymentLinkInput;
  const checked = CreatePaymentLinkBody.safeParse(link);
  if (checked.success) return { ok: true, link: checked.data };
  return {
    ok: false,
    problems: checked.error.issues.map((issue) => {
      if (issue.message === 'maxAmount must not be below minAmount') return t.boundsReversed;
      if (issue.path[0] === 'metadata') return t.metadataInvalid;
      if (issue.path[0] === 'expiresAt') return t.expiryInvalid;
      if (issue.path[0] === 'label') return `${t.label}: ${issue.message}`;
      return issue.message;
    }),
  };
}

/** `2026-12-01T10:00` (a datetime-local box) with Algeria's offset; '' when it is no such time. */
function withOffset(value: string): string {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value)) return `${value}:00${ALGERIA_OFFSET}`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(value)) return `${value}${ALGERIA_OFFSET}`;
  return '';
}

/** A refusal of payments (making or ending a link) in the merchant's language. */
export function linkRefusalText(error: unknown, language: Language): string {
  const t = PaymentLinkPageMessages[language];
  if (!isAppError(error)) throw error;
  const details = error.details ?? {};
  switch (error.code) {
    case 'PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE':
      return t.outOfRange(
        money(Number(details.min), language),
        money(Number(details.max), language),
      );
    case 'VALIDATION400_BAD_REQUEST':
      return JSON.stringify(details).includes('expiresAt')
        ? t.expiryPast
        : refusalText(error, language);
    case 'VALIDATION422_UNPROCESSABLE_ENTITY':
      return t.metadataTooLarge;
    case 'SETTLEMENT422_MERCHANT_WALLET_MISSING':
      return t.noWallet;
    case 'PAYMENT_LINK404_NOT_FOUND':
      return t.notFound;
    case 'SERVICE503_UNAVAILABLE':
      return t.unavailable;
    default:
      return refusalText(error, language);
  }
}
