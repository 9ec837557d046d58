import { retryAfterMs, type AttemptVerdict } from './retry.ts';

/** What the partner answered to one attempt; `error` when there was no usable answer. */
export interface AttemptResult {
  startedAt: Date;
  latencyMs: number;
  statusCode: number | null;
  /** At most 1 KB of the response body. */
  responseExcerpt: string;
  error: string | null;
  verdict: AttemptVerdict;
}

export const NO_ENDPOINT = 'no partner endpoint';
export const TARGET_REFUSED = 'target refused: private address';

/** A partner's answer, read within the attempt's deadline. */
export interface PartnerAnswer {
  status: number;
  body: string;
  retryAfter: string | undefined;
}

/**
 * Judges an answer (ARCHITECTURE §6): delivered is a 2xx whose JSON body has
 * `success: true`; 410 Gone stops the retries; anything else is retried, after the
 * partner's Retry-After when it gave one.
 */
export function judgeAnswer(
  answer: PartnerAnswer,
  now: Date,
): { verdict: AttemptVerdict; error: string | null } {
  if (answer.status >= 200 && answer.status < 300) {
    if (acknowledged(answer.body)) return { verdict: { kind: 'delivered' }, error: null };
    return {
      verdict: { kind: 'retry', retryAfterMs: null },
      error: 'answer is not {"success": true}',
    };
  }
  if (answer.status === 410) return { verdict: { kind: 'stop' }, error: 'gone: retries stopped' };
  return {
    verdict: { kind: 'retry', retryAfterMs: retryAfterMs(answer.retryAfter, now) },
    error: `HTTP ${answer.status}`,
  };
}

function acknowledged(body: string): boolean {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null && 'success' in parsed
      ? parsed.success === true
      : false;
  } catch {
    return false;
  }
}

/**
 * Text a partner sent, made storable: NUL characters dropped (Postgres text refuses
 * them, and a record that cannot be written would retry the delivery forever).
 */
export function storable(text: string): string {
  return text.replaceAll('\u0000', '');
}

/** The first `maxBytes` of a text as UTF-8, never cutting a character in two; storable. */
export function excerpt(text: string, maxBytes = 1024): string {
  const clean = storable(text);
  const bytes = Buffer.from(clean, 'utf8');
  if (bytes.length <= maxBytes) return clean;
  let cut = maxBytes;
  // Back off continuation bytes (10xxxxxx) so the cut falls on a character boundary.
  while (cut > 0 && ((bytes[cut] ?? 0) & 0xc0) === 0x80) cut -= 1;
  return bytes.subarray(0, cut).toString('utf8');
}
