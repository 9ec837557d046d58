import { parseSetQrConfig, type Language, type QrConfigSetRequest } from '@dzpay/contracts';
import { parseTypedDzd } from './dzd-amount.ts';
import { fieldOf } from './form.ts';
import { money } from './format.ts';
import { QrPageMessages } from './qr-messages.ts';

type SetCommand = Omit<QrConfigSetRequest, 'merchantId' | 'mode'>;

/**
 * Algeria keeps UTC+1 all year (no summer time since 1981): a time typed in the form's
 * datetime-local box is read there, as a merchant in Algiers means it.
 */
const ALGERIA_OFFSET = '+01:00';

/**
 * The QR form (amounts one per line, optional expiry, single use) turned into what
 * qr-config is asked, checked by the very function behind POST /set-qr-config (same
 * rules, same limits, the merchant's payable range); its refusals in the page's language.
 */
export function parseQrForm(
  token: string,
  form: unknown,
  now: Date,
  range: { minAmount: number; maxAmount: number },
  language: Language,
): { ok: true; command: SetCommand } | { ok: false; problems: string[] } {
  const text = QrPageMessages[language];
  const problems: string[] = [];
  const amounts: number[] = [];
  for (const line of (fieldOf(form, 'amounts') ?? '').split(/[\n;]+/)) {
    const typed = line.trim();
    if (!typed) continue;
    const read = parseTypedDzd(typed);
    if (read.ok) amounts.push(read.dzd);
    else if (read.reason === 'ambiguous') problems.push(text.amountAmbiguous(typed));
    else problems.push(text.amountNotNumber(typed));
  }
  if (problems.length > 0) return { ok: false, problems };
  const expires = fieldOf(form, 'expiresAt');
  const body = {
    token,
    amounts,
    expiresAt: expires ? withOffset(expires) : null,
    singleUse: fieldOf(form, 'singleUse') !== undefined,
  };
  const parsed = parseSetQrConfig(body, now, range);
  if (parsed.ok) return { ok: true, command: parsed.value };
  return {
    ok: false,
    problems: [...new Set(parsed.error.map((m) => localized(m, range, language)))],
  };
}

/** `2026-12-01T10:00` (a datetime-local box) → `2026-12-01T10:00:00+01:00`; anything else as typed. */
function withOffset(value: string): string {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value)) return `${value}:00${ALGERIA_OFFSET}`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(value)) return `${value}${ALGERIA_OFFSET}`;
  return value;
}

function localized(
  message: string,
  range: { minAmount: number; maxAmount: number },
  language: Language,
): string {
  const text = QrPageMessages[language];
  if (message.startsWith('each value in amounts must be between'))
    return text.amountRange(money(range.minAmount, language), money(range.maxAmount, language));
  return text.problems[message] ?? message;
}
