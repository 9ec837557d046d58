import type { ErrorCode } from '@dzpay/contracts';

/**
 * The one error type that carries a stable code from the catalog. Domain and adapter
 * code throws it; the RPC layer sends its code across NATS and the gateway maps the
 * code to an HTTP status and envelope. Anything else that is thrown is a bug and is
 * answered as INTERNAL500_ERROR without its message.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.details = options.details;
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
