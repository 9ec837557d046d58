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
  /**
   * How long one register.do failure that says the network is out (unreachable, timing
   * out, credentials refused) makes registrations answer CARDNET502, unless a register.do
   * succeeds first (docs/payments.md, "When the card network is out").
   */
  CARDNET_DOWN_MS: z.coerce.number().int().nonnegative().default(5_000),
  /** The payment window; the spec's 15 minutes, shorter only in tests. */
  PAYMENT_WINDOW_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(15 * 60 * 1000),
  /**
   * How long a press of pay holds a single-use payment link while its payer has not
   * reached the card form (90 s: long enough to read the checkout page and go on, short
   * enough that an idle or anonymous press does not keep the link from the next payer);
   * then the next payer's press expires it (docs/payment-links.md).
   */
  LINK_PRESS_HOLD_MS: z.coerce.number().int().positive().default(90_000),
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
   * How often the sweeper looks again at a refund whose answer was lost (it is read from
   * the order's refund history, never asked again).
   */
  REFUND_QUIET_MS: z.coerce.number().int().positive().default(30_000),
  /**
   * A refund asked of the card network whose answer was lost, and which its order's
   * history still does not show this long after, is taken as never made (the merchant
   * may refund again); one that lands later still is raised by the reconciler.
   */
  REFUND_HORIZON_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(60 * 60 * 1000),
  /**
   * An attempt still undecided this long after its window closed (its order cannot be
   * read: credentials refused, the network failing) is logged at error level and counted
   * in dzpay_settlement_overdue, which alerts (docs/runbook.md).
   */
  OVERDUE_ALERT_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(15 * 60 * 1000),
  /**
   * How often payments reconciles dzpay's records with every order the card networks
   * hold (docs/runbook.md, Reconciliation); one replica runs at a time, the first run one
   * interval after start.
   */
  RECONCILIATION_INTERVAL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(60 * 60 * 1000),
  /**
   * How far back each scheduled reconciliation looks: orders registered in the last …
   * Longer than the time a late payment or a lost refund can take to show.
   */
  RECONCILIATION_WINDOW_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(2 * 86_400_000),
  /**
   * Product lookups may reach loopback and private addresses (a developer's machine,
   * the tests). Off by default; no deployment sets it (docs/partner-requests.md).
   */
  ...PartnerTargetsEnv.shape,
});
export type PaymentsEnv = z.infer<typeof PaymentsEnv>;
