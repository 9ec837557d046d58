import { BaseEnv, PartnerTargetsEnv } from '@dzpay/platform';
import { z } from 'zod';

export const PaymentsEnv = BaseEnv.extend({
  OPS_PORT: z.coerce.number().int().min(0).max(65535).default(9103),
  /** The gateway's public base URL: the card network sends payers back to its pages. */
  PUBLIC_BASE_URL: z.url().default('http://localhost:8080'),
  /** Card network for test keys: the sandbox (services/cardnet-sandbox). */
  CARDNET_TEST_URL: z.url().default('http://127.0.0.1:8600'),
  /**
   * base64 of 32 bytes, the gateway's key: opens the partner secrets the gateway sealed
   * into the directory (product lookups) and seals what payments keeps of a checkout
   * token (an idempotent registration's replay).
   */
  SECRETS_KEY: z
    .string()
    .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64'),
  CARDNET_TEST_USERNAME: z.string().default('sandbox'),
  CARDNET_TEST_PASSWORD: z.string().default('sandbox'),
  /** Card network for live keys: the SATIM API. Unset, live payments fail to register (502). */
  CARDNET_LIVE_URL: z.url().optional(),
  CARDNET_LIVE_USERNAME: z.string().default(''),
  CARDNET_LIVE_PASSWORD: z.string().default(''),
  /** SATIM terminal id sent as jsonParams.force_terminal_id, when the acquirer asks for one. */
  CARDNET_TERMINAL_ID: z.string().optional(),
  /**
   * Longest wait for one card network call. A product payment waits for the partner
   * (4 s) and then the card network: together under the gateway's PAYMENTS_TIMEOUT_MS.
   */
  CARDNET_TIMEOUT_MS: z.coerce.number().int().positive().default(6_000),
  /** The payment window; the spec's 15 minutes, shorter only in tests. */
  PAYMENT_WINDOW_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(15 * 60 * 1000),
  /** How often the sweeper looks for attempts to decide. */
  SWEEP_INTERVAL_MS: z.coerce.number().int().positive().default(5_000),
  /** A processing attempt untouched this long is asked about even inside its window. */
  RECONCILE_AFTER_MS: z.coerce.number().int().positive().default(60_000),
  /** Safety-net poll of the outbox (commits wake the relay at once). */
  RELAY_INTERVAL_MS: z.coerce.number().int().positive().default(1_000),
  /**
   * A settlement's claim on a payment, renewed while it runs: a process that dies in the
   * middle of a settlement frees the payment this late.
   */
  SETTLE_LEASE_MS: z.coerce.number().int().min(1_000).default(10_000),
  /** The same for an Idempotency-Key held by a running request. */
  IDEMPOTENCY_LEASE_MS: z.coerce.number().int().min(1_000).default(10_000),
  /**
   * A refund whose answer was lost is asked of the card network again only after this
   * long without a word (longer than any call may still be on its way there).
   */
  REFUND_QUIET_MS: z.coerce.number().int().positive().default(30_000),
  /**
   * Product lookups may reach loopback and private addresses (a developer's machine,
   * the tests). Off by default; no deployment sets it (docs/partner-requests.md).
   */
  ...PartnerTargetsEnv.shape,
});
export type PaymentsEnv = z.infer<typeof PaymentsEnv>;
