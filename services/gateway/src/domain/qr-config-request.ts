import { isJsonObject, UnsetQrConfigBody, validationMessages, type Parsed } from '@dzpay/contracts';

const NOT_AN_OBJECT = 'request body must be a JSON object';

/** Checks an un-set-qr-config body. */
export function parseUnsetQrConfig(body: unknown): Parsed<{ token: string }> {
  const errors: string[] = isJsonObject(body ?? {}) ? [] : [NOT_AN_OBJECT];
  const parsed = UnsetQrConfigBody.safeParse(isJsonObject(body) ? body : {}, { reportInput: true });
  if (!parsed.success)
    return { ok: false, error: [...errors, ...validationMessages(parsed.error.issues)] };
  if (errors.length > 0) return { ok: false, error: errors };
  return { ok: true, value: parsed.data };
}
