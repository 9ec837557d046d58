import { dzdToCentimes } from '../money.ts';
import type { MerchantScope } from '../scope.ts';
import { isJsonObject, validationMessages } from '../validation.ts';
import {
  expiresAtInstant,
  QrMessages,
  SetQrConfigBody,
  type QrConfigSetRequest,
} from './qr-config.ts';

// The rules of a QR configuration, checked where a merchant sets one: the gateway's
// POST /set-qr-config and the dashboard's QR form both ask this function, so both refuse
// the same bodies with the same words.

export type Parsed<T, E = string[]> = { ok: true; value: T } | { ok: false; error: E };

/** What qr-config is asked to do: amounts in integer centimes, expiry in UTC or null. */
type SetQrConfigCommand = Omit<QrConfigSetRequest, keyof MerchantScope>;

const NOT_AN_OBJECT = 'request body must be a JSON object';

/**
 * Checks a set-qr-config body against every rule and turns it into the command
 * qr-config carries out: amounts in integer centimes, expiry in UTC. `now` decides
 * whether the expiry lies in the future.
 */
export function parseSetQrConfig(
  body: unknown,
  now: Date,
  /** The merchant's payable range, in centimes: an amount outside it could never be paid. */
  range: { minAmount: number; maxAmount: number },
): Parsed<SetQrConfigCommand> {
  const errors: string[] = isJsonObject(body ?? {}) ? [] : [NOT_AN_OBJECT];
  const input = isJsonObject(body) ? body : {};
  const parsed = SetQrConfigBody.safeParse(input, { reportInput: true });
  if (!parsed.success)
    return { ok: false, error: [...errors, ...validationMessages(parsed.error.issues)] };

  const expiresAt = parsed.data.expiresAt ? expiresAtInstant(parsed.data.expiresAt) : null;
  if (expiresAt && expiresAt.getTime() <= now.getTime()) errors.push(QrMessages.expiresAtFuture);
  const amounts = parsed.data.amounts.map(dzdToCentimes);
  if (amounts.some((amount) => amount < range.minAmount || amount > range.maxAmount)) {
    errors.push(QrMessages.amountRange(range.minAmount, range.maxAmount));
  }
  if (errors.length > 0) return { ok: false, error: errors };

  return {
    ok: true,
    value: {
      token: parsed.data.token,
      amounts,
      expiresAt: expiresAt?.toISOString() ?? null,
      singleUse: parsed.data.singleUse,
    },
  };
}
