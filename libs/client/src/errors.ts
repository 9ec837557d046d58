import { StandardError, ValidationList, type ErrorCode } from '@dzpay/contracts';
import { retryAfterSeconds } from './retry.ts';

/** An answer of dzpay that is not a success, with its parsed body. */
export class DzpayError extends Error {
  readonly status: number;
  /** The standard envelope's errorCode; undefined for the validation-list and rate-limit shapes. */
  readonly errorCode: ErrorCode | undefined;
  /** The parsed StandardError or ValidationList, or the raw body when it is neither. */
  readonly body: unknown;
  /** Seconds the server asked to wait (Retry-After), if it did. */
  readonly retryAfterSeconds: number | undefined;
  /**
   * The Idempotency-Key the request carried (the caller's or one made for the call):
   * what to send again with, so that a retry by hand cannot register or refund twice.
   */
  readonly idempotencyKey: string | undefined;

  constructor(status: number, body: unknown, retryAfter: string | null, idempotencyKey?: string) {
    const standard = StandardError.safeParse(body);
    const list = ValidationList.safeParse(body);
    const message = standard.success
      ? standard.data.message
      : list.success
        ? list.data.message.join('; ')
        : `HTTP ${status}`;
    super(`dzpay answered ${status}: ${message}`);
    this.name = 'DzpayError';
    this.status = status;
    this.errorCode = standard.success ? standard.data.errorCode : undefined;
    this.body = standard.success ? standard.data : list.success ? list.data : body;
    this.retryAfterSeconds = retryAfterSeconds(retryAfter);
    this.idempotencyKey = idempotencyKey;
  }
}

/**
 * No answer from dzpay (refused, reset, timed out) after the retries allowed: the request
 * may or may not have been carried out. Send it again with `idempotencyKey`, if it had one.
 */
export class DzpayConnectionError extends Error {
  readonly idempotencyKey: string | undefined;

  constructor(method: string, path: string, cause: unknown, idempotencyKey?: string) {
    super(`dzpay did not answer ${method} ${path}`, { cause });
    this.name = 'DzpayConnectionError';
    this.idempotencyKey = idempotencyKey;
  }
}
