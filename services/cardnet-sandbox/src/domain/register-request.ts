import type { Result } from './card.ts';
import {
  BpcErrorCode,
  bpcError,
  invalid,
  missing,
  parseAmount,
  type BpcError,
  type Params,
} from './bpc-errors.ts';
import type { OrderRequest } from './order.ts';
import type { Language } from './test-cards.ts';

const DZD = '012';
const DEFAULT_SESSION_TIMEOUT_SECS = 1200;
/** The bounds SATIM accepts for sessionTimeoutSecs. */
const SESSION_TIMEOUT_RANGE = [600, 86_400] as const;
const MAX_DESCRIPTION_LENGTH = 512;

/**
 * Reads register.do's parameters. Stricter than lenient: the sandbox exists to catch
 * integration mistakes, so it refuses what SATIM might silently take. The codes are
 * BPC's: 4 for an absent parameter, 3 for a currency, 5 for any other bad value.
 */
export function parseRegisterRequest(params: Params): Result<OrderRequest, BpcError> {
  const fail = (error: BpcError) => ({ ok: false as const, error });
  const present = (name: string) => (params[name] ?? '') !== '';

  if (!present('orderNumber')) return fail(missing('orderNumber'));
  const orderNumber = params.orderNumber!;
  if (!/^[\x21-\x7e]{1,32}$/.test(orderNumber))
    return fail(invalid('orderNumber', '1 to 32 visible ASCII characters'));

  if (!present('amount')) return fail(missing('amount'));
  const amount = parseAmount(params.amount!);
  if (amount === null) return fail(invalid('amount', 'a positive integer in centimes'));

  if (!present('currency')) return fail(missing('currency'));
  // BPC's one code of its own for a bad value: 3, unknown currency.
  if (params.currency !== DZD)
    return fail(bpcError(BpcErrorCode.currencyOrState, 'Unknown currency: only 012 (DZD)'));

  if (!present('returnUrl')) return fail(missing('returnUrl'));
  const returnUrl = webUrl(params.returnUrl!);
  if (!returnUrl) return fail(invalid('returnUrl', 'an absolute http or https URL'));
  const failUrl = present('failUrl') ? webUrl(params.failUrl!) : returnUrl;
  if (!failUrl) return fail(invalid('failUrl', 'an absolute http or https URL'));

  const language = parseLanguage(params.language);
  if (!language) return fail(invalid('language', 'AR, FR or EN'));

  const description = params.description ?? '';
  if (description.length > MAX_DESCRIPTION_LENGTH)
    return fail(invalid('description', `at most ${MAX_DESCRIPTION_LENGTH} characters`));

  const sessionTimeoutSecs = present('sessionTimeoutSecs')
    ? Number(params.sessionTimeoutSecs)
    : DEFAULT_SESSION_TIMEOUT_SECS;
  const [minTimeout, maxTimeout] = SESSION_TIMEOUT_RANGE;
  if (
    !Number.isInteger(sessionTimeoutSecs) ||
    sessionTimeoutSecs < minTimeout ||
    sessionTimeoutSecs > maxTimeout
  )
    return fail(invalid('sessionTimeoutSecs', `an integer from ${minTimeout} to ${maxTimeout}`));

  const jsonParams = present('jsonParams') ? parseJsonParams(params.jsonParams!) : {};
  if (!jsonParams) return fail(invalid('jsonParams', 'a JSON object of string values'));

  return {
    ok: true,
    value: {
      orderNumber,
      amount,
      returnUrl,
      failUrl,
      language,
      description,
      sessionTimeoutSecs,
      jsonParams,
    },
  };
}

/** AR, FR or EN in any case; absent means FR, SATIM's usual default. */
export function parseLanguage(raw: string | undefined): Language | null {
  if (raw === undefined || raw === '') return 'fr';
  const language = raw.toLowerCase();
  return language === 'ar' || language === 'fr' || language === 'en' ? language : null;
}

function webUrl(raw: string): string | null {
  if (!URL.canParse(raw)) return null;
  const url = new URL(raw);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : null;
}

function parseJsonParams(raw: string): Record<string, string> | null {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const entries = Object.entries(value as Record<string, unknown>);
  const strings = entries.filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
  return strings.length === entries.length ? Object.fromEntries(strings) : null;
}
