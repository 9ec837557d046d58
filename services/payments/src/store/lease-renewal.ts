import type { Logger } from '@dzpay/platform';

/**
 * Keeps a lease alive while its work runs: renews it every third of its length. Work
 * that is still running after `maxHoldMs` (hung on a call that never returns) is left to
 * lose its lease, so a payment or an Idempotency-Key is never held forever; whatever
 * that work writes later is refused by the lease it lost.
 */
export function renewWhileRunning(options: {
  leaseMs: number;
  maxHoldMs: number;
  /** Extends the lease; false when it is not held any more. */
  renew: () => Promise<boolean>;
  logger: Logger;
  /** What is held, for the log: `{ paymentId }`, `{ idempotencyKey }`. */
  subject: Record<string, string>;
}): { stop(): void } {
  const giveUpAt = Date.now() + options.maxHoldMs;
  const timer = setInterval(
    () => {
      if (Date.now() >= giveUpAt) {
        clearInterval(timer);
        options.logger.warn(
          options.subject,
          'work still running past its longest hold; its lease ends',
        );
        return;
      }
      options.renew().then(
        (held) => {
          if (!held)
            options.logger.warn(options.subject, 'lease lost; the work writes nothing more');
        },
        (err: unknown) => options.logger.warn({ err, ...options.subject }, 'lease renewal failed'),
      );
    },
    Math.max(1, Math.floor(options.leaseMs / 3)),
  );
  return { stop: () => clearInterval(timer) };
}
