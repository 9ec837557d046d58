import { DurableConsumers } from '@dzpay/contracts';
import { BaseEnv, PartnerTargetsEnv } from '@dzpay/platform';
import { z } from 'zod';

const DEFAULT_SCHEDULE = '0,5000,300000,1800000,7200000,18000000,36000000,36000000';

export const DispatcherEnv = BaseEnv.extend({
  OPS_PORT: z.coerce.number().int().min(0).max(65535).default(9105),
  /** base64 of 32 bytes: opens the partner secrets the gateway sealed into the directory. */
  SECRETS_KEY: z
    .string()
    .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64'),
  /**
   * Delay before each attempt, in ms, comma-separated: the first entry is the first
   * attempt (0 = at once), each next one counts from the previous failure. Its length is
   * the number of attempts before the delivery is `fail` (ARCHITECTURE §6).
   */
  WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .default(DEFAULT_SCHEDULE)
    .transform((value) => value.split(',').map((part) => Number(part.trim())))
    .pipe(z.array(z.number().int().nonnegative()).min(1)),
  /**
   * Webhooks may reach loopback and private addresses (a developer's machine, the
   * tests), in both modes. Off by default; no deployment sets it (docs/partner-requests.md).
   */
  ...PartnerTargetsEnv.shape,
  /** A partner answering later than this has failed the attempt. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  /** Attempts in flight at once to one endpoint (merchant and mode), per replica. */
  WEBHOOK_CONCURRENCY_PER_ENDPOINT: z.coerce.number().int().positive().default(4),
  /** How often due deliveries are looked for (new ones also wake the scheduler at once). */
  SCHEDULER_INTERVAL_MS: z.coerce.number().int().positive().default(500),
  /** Durable consumer of PAYMENTS; replicas share it. */
  WEBHOOK_CONSUMER: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only')
    .default(DurableConsumers.dispatcherPayments.durable),
  /** Wait before a payment event that failed to enqueue (database away) is tried again. */
  INTAKE_RETRY_MS: z.coerce.number().int().positive().default(2_000),
  /** An event delivered but not acknowledged this long is delivered again. */
  INTAKE_ACK_WAIT_MS: z.coerce.number().int().positive().default(30_000),
  /** Safety-net poll of the outbox (commits wake the relay at once). */
  RELAY_INTERVAL_MS: z.coerce.number().int().positive().default(1_000),
});
export type DispatcherEnv = z.infer<typeof DispatcherEnv>;
