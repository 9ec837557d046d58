import { createHash } from 'node:crypto';
import type { AnsweredAgain } from '@dzpay/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ValidationFailure } from './errors.ts';

// Writes answered again: by an Idempotency-Key's stored answer (`Idempotent-Replayed:
// true`), or with nothing to do (a cancelled payment cancelled again). Either way nothing
// was done now, and the audit log records the write that did it, once.

/**
 * The Idempotency-Key header and a fingerprint of the body it came with: the same
 * key with another body is refused rather than answered with the first result.
 */
export function idempotencyOf(
  request: FastifyRequest,
): { key: string; fingerprint: string } | null {
  const values = request.raw.headersDistinct['idempotency-key'];
  if (!values) return null;
  const key = values.length === 1 ? values[0]!.trim() : '';
  if (key.length === 0 || key.length > 255) {
    throw ValidationFailure.of([
      {
        field: 'Idempotency-Key',
        message: 'Idempotency-Key must be one header of 1 to 255 characters',
      },
    ]);
  }
  const fingerprint = createHash('sha256')
    // The route is part of what is fingerprinted: one key cannot serve two operations.
    .update(`${request.method} ${request.url.split('?')[0]} ${canonicalJson(request.body ?? null)}`)
    .digest('hex');
  return { key, fingerprint };
}

/** JSON with object keys sorted: the same body sent with its keys in another order is the same request. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, node: unknown) =>
    typeof node === 'object' && node !== null && !Array.isArray(node)
      ? Object.fromEntries(Object.entries(node).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : node,
  );
}

/** Requests whose write was answered again: nothing done now, nothing to audit. */
const answeredAgain = new WeakSet<FastifyRequest>();

/**
 * What the route answers of a write's reply: the reply without what it says of itself,
 * `Idempotent-Replayed: true` on a replay, and the request remembered as done before.
 */
export function answerOf<T extends AnsweredAgain>(
  request: FastifyRequest,
  reply: FastifyReply,
  { replayed, unchanged, ...data }: T,
): Omit<T, keyof AnsweredAgain> {
  if (replayed) void reply.header('idempotent-replayed', 'true');
  if (replayed || unchanged) answeredAgain.add(request);
  return data;
}

/** Marks a write that changed nothing (the same settings saved again) as answered again. */
export function markUnchanged(request: FastifyRequest, unchanged: boolean): void {
  if (unchanged) answeredAgain.add(request);
}

/** Whether this request's write was answered again (answerOf), so not audited. */
export const wasAnsweredAgain = (request: FastifyRequest): boolean => answeredAgain.has(request);
