import {
  isJsonObject,
  jsonDepth,
  MAX_METADATA_DEPTH,
  RegisterPaymentBody,
  RefundPaymentBody,
  EmailReceiptBody,
  type Mode,
  type Parsed,
} from '@dzpay/contracts';
import type { z } from 'zod';
import { liveReturnUrlProblem } from './live-return-url.ts';

/** One broken rule of a payments API body: details.failures of VALIDATION400_BAD_REQUEST. */
export interface Failure {
  field: string;
  message: string;
}

/**
 * Checks a POST /api/v1/payments body against every rule that does not depend on the
 * merchant's terms. A live key's payment sends real payers back, so its return URLs
 * must also be https on a public host; a test key's may be http or localhost.
 */
export function parseRegisterPayment(
  body: unknown,
  mode: Mode,
): Parsed<RegisterPaymentBody, Failure[]> {
  // Measured before the schema walks it: a hostile nesting must not exhaust the stack.
  const metadata = isJsonObject(body) ? body.metadata : undefined;
  if (metadata !== undefined && jsonDepth(metadata) > MAX_METADATA_DEPTH) {
    return {
      ok: false,
      error: [
        {
          field: 'metadata',
          message: `metadata must not nest deeper than ${MAX_METADATA_DEPTH} levels`,
        },
      ],
    };
  }
  const parsed = parseWith(RegisterPaymentBody, body);
  if (mode !== 'live') return parsed;
  // Judged on the body as sent, so one answer lists these with the schema's failures; a
  // URL the schema already refused is not reported twice.
  const refused = new Set(parsed.ok ? [] : parsed.error.map((failure) => failure.field));
  const failures = isJsonObject(body) ? liveReturnUrlFailures(body, refused) : [];
  if (failures.length === 0) return parsed;
  return { ok: false, error: [...(parsed.ok ? [] : parsed.error), ...failures] };
}

function liveReturnUrlFailures(
  body: Record<string, unknown>,
  refused: ReadonlySet<string>,
): Failure[] {
  const failures: Failure[] = [];
  for (const field of ['successUrl', 'failureUrl'] as const) {
    const value = body[field];
    if (typeof value !== 'string' || refused.has(field)) continue;
    const problem = liveReturnUrlProblem(value);
    if (problem !== null) failures.push({ field, message: `${field} ${problem}` });
  }
  return failures;
}

/** Checks a refund body; a missing body means a full refund. */
export function parseRefund(body: unknown): Parsed<RefundPaymentBody, Failure[]> {
  return parseWith(RefundPaymentBody, body ?? {});
}

/** Checks a receipt email body: the address (at most 254 characters, well formed) and an optional language. */
export function parseEmailReceipt(body: unknown): Parsed<EmailReceiptBody, Failure[]> {
  return parseWith(EmailReceiptBody, body);
}

function parseWith<S extends z.ZodType>(schema: S, body: unknown): Parsed<z.infer<S>, Failure[]> {
  if (!isJsonObject(body ?? {})) {
    return { ok: false, error: [{ field: 'body', message: 'request body must be a JSON object' }] };
  }
  const parsed = schema.safeParse(body ?? {}, { reportInput: true });
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, error: failuresOf(parsed.error.issues) };
}

function failuresOf(issues: readonly z.core.$ZodIssue[]): Failure[] {
  const failures: Failure[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        failures.push({ field: key, message: `property ${key} should not exist` });
      continue;
    }
    const field = issue.path.map(String).join('.') || 'body';
    const missing =
      issue.code === 'invalid_type' && (issue as { input?: unknown }).input === undefined;
    failures.push({ field, message: missing ? `${field} is required` : issue.message });
  }
  return failures;
}
