import { RpcFailure, type MerchantScope } from '@dzpay/contracts';
import { AppError } from '@dzpay/platform';
import type { z } from 'zod';
import type { PaymentsRepository } from '../adapters/payments-repository.ts';

/** Codes whose answer is worth replaying for the same Idempotency-Key: not "retry later". */
const TRANSIENT = new Set(['SERVICE503_UNAVAILABLE', 'INTERNAL500_ERROR']);

/**
 * Runs an operation once per Idempotency-Key: the first answer (success or a definite
 * error) is stored and replayed, parsed with the operation's own schema; the same key
 * with another request is refused; a key whose request died frees itself after a minute.
 */
export async function idempotent<S extends z.ZodType>(
  repository: PaymentsRepository,
  scope: MerchantScope,
  idempotency: { key: string; fingerprint: string } | undefined,
  reply: S,
  run: () => Promise<z.infer<S>>,
): Promise<{ value: z.infer<S>; replayed: boolean }> {
  if (!idempotency) return { value: await run(), replayed: false };
  const claim = await repository.claimIdempotencyKey(
    scope,
    idempotency.key,
    idempotency.fingerprint,
  );
  if (claim.kind === 'mismatch') {
    throw new AppError(
      'IDEMPOTENCY409_KEY_REUSED',
      'this Idempotency-Key was used with another request',
    );
  }
  if (claim.kind === 'in-progress') {
    throw new AppError(
      'IDEMPOTENCY409_KEY_REUSED',
      'a request with this Idempotency-Key is still running; retry shortly',
    );
  }
  if (claim.kind === 'replay') return { value: replay(reply, claim.response), replayed: true };

  try {
    const value = await run();
    await repository.storeIdempotentResponse(scope, idempotency.key, { ok: true, value });
    return { value, replayed: false };
  } catch (error) {
    if (error instanceof AppError && !TRANSIENT.has(error.code)) {
      const { code, message, details } = error;
      await repository.storeIdempotentResponse(scope, idempotency.key, {
        ok: false,
        error: { code, message, details },
      });
    } else {
      await repository.releaseIdempotencyKey(scope, idempotency.key);
    }
    throw error;
  }
}

function replay<S extends z.ZodType>(reply: S, stored: unknown): z.infer<S> {
  const answer = stored as { ok: boolean; value?: unknown; error?: unknown };
  if (answer.ok) return reply.parse(answer.value);
  const { code, message, details } = RpcFailure.parse(answer.error);
  throw new AppError(code, message, details ? { details } : {});
}
