import { DurableConsumers } from '@dzpay/contracts';
import { BaseEnv } from '@dzpay/platform';
import { z } from 'zod';

export const StatusEnv = BaseEnv.extend({
  OPS_PORT: z.coerce.number().int().min(0).max(65535).default(9104),
  /**
   * Durable consumer of PAYMENTS, and with `-webhooks` appended of WEBHOOKS; replicas
   * share them. A new name replays both streams.
   */
  STATUS_CONSUMER: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only')
    .default(DurableConsumers.statusPayments.durable),
  /** Wait before an event that failed to apply (database away) is tried again. */
  PROJECTION_RETRY_MS: z.coerce.number().int().positive().default(2_000),
  /** An event delivered but not acknowledged this long is delivered again. */
  PROJECTION_ACK_WAIT_MS: z.coerce.number().int().positive().default(30_000),
  /**
   * How long a reference's attempts may answer from memory (adapters/attempts-cache.ts);
   * changes are forgotten at once, this only bounds a lost notification. 0: off.
   */
  STATUS_CACHE_TTL_MS: z.coerce.number().int().min(0).default(30_000),
  /** References kept in memory at most; the oldest goes first. */
  STATUS_CACHE_MAX_ENTRIES: z.coerce.number().int().positive().default(100_000),
});
export type StatusEnv = z.infer<typeof StatusEnv>;
