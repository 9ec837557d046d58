import { RpcFailure, type MerchantScope } from '@dzpay/contracts';
import { AppError, type Logger } from '@dzpay/platform';
import type { z } from 'zod';
import type { IdempotencyRepository } from './idempotency-repository.ts';
import { renewWhileRunning } from './lease-renewal.ts';

/**
 * Longest a request keeps its key: the gateway has long stopped waiting by then, and one
 * still running is hung; its retry may take the key over (what it guards, a payment's
 * reference or a refund's intent, still refuses to act twice).
 */
const MAX_HOLD_MS = 5 * 60 * 1000;

/** Codes whose answer is worth replaying for the same Idempotency-Key: not "retry later". */
const TRANSIENT = new Set([
  'SERVICE503_UNAVAILABLE',
  'INTERNAL500_ERROR',
  // Another refund of the payment is pending: this one may run once it is known.
  'PAYMENT_INSTANCE409_REFUND_PENDING',
]);

/** The key a request runs under, and what an earlier try of it committed. */
/**
 * The refusal of a key whose first request still runs (a double click), told apart from a
 * reuse with another body by callers that wait for the first instead (payment links).
 */
export const STILL_RUNNING_MESSAGE =
  'a request with this Idempotency-Key is still running; retry shortly';

export interface HeldKey {
  key: string;
  owner: string;
  /** The payment an earlier try of this registration committed before it died unanswered. */
  paymentId: string | null;
}

export interface IdempotencyDeps {
  keys: IdempotencyRepository;
  logger: Logger;
  /** How long a key stays claimed without renewal: a request that dies frees it this late. */
  leaseMs: number;
}

/**
 * Runs an operation once per Idempotency-Key: the first answer (success or a definite
 * error) is stored and replayed, parsed with the operation's own schema; the same key
 * with another request is refused. A key is held by its running request (a lease it
 * renews), so a retry never runs it a second time alongside the first; an answer that
 * says "retry later" leaves the key bound to its request for the retry to take over.
 *
 * An answer is sent only once it is stored: a try that died before storing it was never
 * answered, so its retry may answer what that try committed in another way (a
 * registration's payment with a new checkout link). `run` gets the key it runs under
 * (null without one) to find or bind what it commits.
 */
export async function idempotent<S extends z.ZodType>(
  deps: IdempotencyDeps,
  scope: MerchantScope,
  idempotency: { key: string; fingerprint: string } | undefined,
  reply: S,
  run: (held: HeldKey | null) => Promise<z.infer<S>>,
): Promise<{ value: z.infer<S>; replayed: boolean }> {
  if (!idempotency) return { value: await run(null), replayed: false };
  const { keys, leaseMs } = deps;
  const { key } = idempotency;
  const claim = await keys.claim(scope, key, idempotency.fingerprint, leaseMs);
  if (claim.kind === 'mismatch') {
    throw new AppError(
      'IDEMPOTENCY409_KEY_REUSED',
      'this Idempotency-Key was used with another request',
    );
  }
  if (claim.kind === 'in-progress') {
    throw new AppError('IDEMPOTENCY409_KEY_REUSED', STILL_RUNNING_MESSAGE, {
      details: { inProgress: true },
    });
  }
  if (claim.kind === 'replay') return { value: replay(reply, claim.response), replayed: true };

  const { owner, paymentId } = claim;
  const renewal = renewWhileRunning({
    leaseMs,
    maxHoldMs: MAX_HOLD_MS,
    renew: () => keys.renew(scope, key, owner, leaseMs),
    logger: deps.logger,
    subject: { idempotencyKeyOwner: owner },
  });
  let value: z.infer<S>;
  try {
    value = await run({ key, owner, paymentId });
    if (!(await keys.store(scope, key, owner, { ok: true, value }))) throw takenOver();
  } catch (error) {
    if (error instanceof AppError && !TRANSIENT.has(error.code)) {
      const answer = { ok: false as const, error: storedError(error) };
      if (!(await keys.store(scope, key, owner, answer))) throw takenOver();
    } else {
      await keys.letGo(scope, key, owner);
    }
    throw error;
  } finally {
    renewal.stop();
  }
  return { value, replayed: false };
}

/** An idempotent answer as a reply says it: the value, `replayed: true` when it was a replay. */
export function markedReplay<T extends object>(answer: {
  value: T;
  replayed: boolean;
}): T | (T & { replayed: true }) {
  return answer.replayed ? { ...answer.value, replayed: true } : answer.value;
}

/** An error as a key keeps it, to replay. */
export function storedError({ code, message, details }: AppError) {
  return { code, message, details };
}

/**
 * This request lost its key to a retry (it ran past its lease, paused): the retry's answer
 * is the one the merchant gets, never this one (its checkout link may be dead by then).
 */
function takenOver(): AppError {
  return new AppError(
    'IDEMPOTENCY409_KEY_REUSED',
    'a retry with this Idempotency-Key took it over; its answer is the one to use',
  );
}

function replay<S extends z.ZodType>(reply: S, stored: unknown): z.infer<S> {
  const answer = stored as { ok: boolean; value?: unknown; error?: unknown };
  if (answer.ok) return reply.parse(answer.value);
  const { code, message, details } = RpcFailure.parse(answer.error);
  throw new AppError(code, message, details ? { details } : {});
}
