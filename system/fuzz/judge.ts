import { RateLimitError, StandardError, ValidationList } from '@dzpay/contracts';
import type { Answer, FuzzRequest } from './http.ts';

/**
 * Paths whose answers may be HTML: the payer's pages, the API reference and the
 * merchants' dashboard. Judged by the path the server saw, whatever route a request
 * aimed at (`/pay/` is a page).
 */
const PAGE_PATH = /^\/(checkout|pay|qr|link|docs|dashboard)(\/|$|\?|#)/;

/**
 * Whether a JSON body is in one of the spec's envelopes for this HTTP status: the
 * standard error (its statusCode the same as the status line), the validation list
 * (400 only) or the bare rate-limit shape (429 only).
 */
export function inEnvelope(status: number, body: unknown): boolean {
  const standard = StandardError.safeParse(body);
  if (standard.success) return standard.data.statusCode === status;
  if (status === 400 && ValidationList.safeParse(body).success) return true;
  return status === 429 && RateLimitError.safeParse(body).success;
}

const isJson = (contentType: string | undefined) =>
  /^application\/(.+\+)?json\b/i.test(contentType ?? '');

/**
 * The properties every answer must have, as a list of what went wrong (empty: fine):
 * an answer at all, within the deadline; never 5xx; an error that is not a page is
 * in the envelope.
 */
export function problemsOf(request: FuzzRequest, answer: Answer): string[] {
  if (answer.kind === 'hang') return [`no answer within ${answer.ms} ms`];
  if (answer.kind === 'no-answer') return [`connection ended without an answer (${answer.error})`];
  const problems: string[] = [];
  const { status, headers, body } = answer;
  if (status >= 500) problems.push(`answered ${status}`);
  if (status < 400 || request.method.toUpperCase() === 'HEAD' || body.length === 0) {
    return problems;
  }
  const contentType = headers['content-type'];
  if (isJson(contentType)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return [...problems, `answered ${status} with JSON that does not parse`];
    }
    if (!inEnvelope(status, parsed)) problems.push(`answered ${status} outside the envelope`);
  } else if (!(PAGE_PATH.test(request.target) && /^text\/html\b/i.test(contentType ?? ''))) {
    problems.push(`answered ${status} as ${contentType ?? 'no content type'}, not the envelope`);
  }
  return problems;
}

/** An answer in one line, for failure reports: status, type, the start of the body. */
export function describeAnswer(answer: Answer): string {
  if (answer.kind !== 'answer') return `${answer.kind} after ${answer.ms} ms`;
  const excerpt = answer.body.toString('utf8').slice(0, 300);
  return `${answer.status} ${answer.headers['content-type'] ?? ''} ${JSON.stringify(excerpt)}`;
}
