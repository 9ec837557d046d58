import type { MerchantScope } from '@dzpay/contracts';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export type Taken = { ok: true } | { ok: false; retryAfterSeconds: number };

/**
 * Receipt emails per merchant and mode per window (test keys never spend the live
 * budget), counted in Redis so every replica shares the
 * count. A send takes its place before the email goes out and gives it back when the
 * mail server refuses it: only emails that left count. Limits differ per merchant; the
 * count under one key is the same whatever the limit read against it.
 */
export function receiptSendLimit(redis: Redis, windowSeconds: number) {
  const limiters = new Map<number, RateLimiterRedis>();
  const limiterOf = (perWindow: number) => {
    let limiter = limiters.get(perWindow);
    if (limiter === undefined) {
      limiter = new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: 'receipts-sent',
        points: perWindow,
        duration: windowSeconds,
      });
      limiters.set(perWindow, limiter);
    }
    return limiter;
  };

  return {
    /** Takes one place; Redis failures throw (no count, no email). */
    async take(scope: MerchantScope, perWindow: number): Promise<Taken> {
      try {
        await limiterOf(perWindow).consume(keyOf(scope), 1);
        return { ok: true };
      } catch (outcome) {
        if (!(outcome instanceof RateLimiterRes)) throw outcome;
        return {
          ok: false,
          retryAfterSeconds: Math.max(1, Math.ceil(outcome.msBeforeNext / 1000)),
        };
      }
    },
    /** Gives back a place taken for an email that did not leave. */
    async giveBack(scope: MerchantScope, perWindow: number): Promise<void> {
      await limiterOf(perWindow).reward(keyOf(scope), 1);
    },
  };
}

const keyOf = (scope: MerchantScope) => `${scope.merchantId}:${scope.mode}`;

export type ReceiptSendLimit = ReturnType<typeof receiptSendLimit>;
