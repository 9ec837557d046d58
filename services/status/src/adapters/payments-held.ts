import { Rpc, type StatusSubject } from '@dzpay/contracts';
import { requestRpc, type NatsConnection } from '@dzpay/platform';
import { attemptUpdateOf, type AttemptUpdate } from '../domain/attempt-event.ts';

/** The attempts that hold a product reference in payments' rows, asked before calling it free. */
export type HeldAttempts = (subject: StatusSubject) => Promise<AttemptUpdate[]>;

/**
 * Per try, less than the gateway gives status per try, so a payments replica lost with
 * the question costs one short wait and a second try inside the gateway's first.
 */
const TRY_TIMEOUT_MS = 400;
const TIMEOUT_MS = 2_000;

/**
 * `payments.reference.held` over NATS, read with the stream's own parser. When payments
 * cannot answer, the question fails (503): status never calls a reference free that it
 * could not check, and the spec tells partners to keep the lock on any error.
 */
export function paymentsHeldAttempts(nats: NatsConnection, prefix: string): HeldAttempts {
  return async (subject) => {
    const { attempts } = await requestRpc(nats, prefix, Rpc.referenceHeld, subject, {
      timeoutMs: TIMEOUT_MS,
      tryTimeoutMs: TRY_TIMEOUT_MS,
    });
    return attempts.flatMap((event) => {
      const update = attemptUpdateOf(event);
      return update ? [update] : [];
    });
  };
}
