import type { MerchantScope } from '@dzpay/contracts';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export type Taken = { ok: true } | { ok: false; retryAfterSeconds: number };

/**
 * Receipt emails per merchant and mode per window (test keys never spend the live
 * budget), counted in Redis so every replica shares the count. A send takes its place
 * before the email goes out and gives it back when the mail server refuses it: only
 * emails that left count. Limits differ per merchant; the count under one key is the
 * same whatever the limit read against it.
 *
 * Without Redis (refused at once while the connection is down, see connectRedis) each
 * replica counts in memory and allows its share, the limit ÷ `replicas` rounded up:
 * sends go on, still limited, and the count is Redis's again when it answers. Counts are
 * not carried across a switch.
 */
export function receiptSendLimit(redis: Redis, windowSeconds: number, replicas = 1) {
  const limiters = new Map<number, RateLimiterRedis>();
  const limiterOf = (perWindow: number) => {
    let limiter = limiters.get(perWindow);
    if (limiter === undefined) {
      limiter = new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: 'receipts-sent',
        points: perWindow,
        duration: windowSeconds,
        // Not connected: straight to memory, no command sent.
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory({
          keyPrefix: 'receipts-sent',
          points: Math.ceil(perWindow / replicas),
          duration: windowSeconds,
        }),
      });
      limiters.set(perWindow, limiter);
    }
    return limiter;
  };

  return {
    /** Takes one place: in Redis, or in this replica's share while Redis is unreachable. */
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
