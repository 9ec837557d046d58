import { secretsKey, type Logger, type NatsConnection, type Sql } from '@dzpay/platform';
import type { CardNetwork } from './card-network/card-network.ts';
import type { PaymentsEnv } from './config.ts';
import { networkHealth, type NetworkHealth } from './domain/network-health.ts';
import { refundExecutor } from './lifecycle/refund-executor.ts';
import { settlementLeases } from './lifecycle/settlement-lease.ts';
import { settler } from './lifecycle/settler.ts';
import { idempotencyRepository } from './store/idempotency-repository.ts';
import { paymentsRepository } from './store/payments-repository.ts';
import { refundsRepository } from './store/refunds-repository.ts';

/** The settings of payments' operations, from its config (tests leave most to defaults). */
type ContextConfig = Pick<
  PaymentsEnv,
  | 'SETTLE_LEASE_MS'
  | 'IDEMPOTENCY_LEASE_MS'
  | 'REFUND_QUIET_MS'
  | 'REFUND_HORIZON_MS'
  | 'CARDNET_TIMEOUT_MS'
  | 'SECRETS_KEY'
  | 'CARDNET_DOWN_MS'
  | 'PUBLIC_BASE_URL'
  | 'PAYMENT_WINDOW_MS'
  | 'LINK_PRESS_HOLD_MS'
>;

/**
 * What every operation of payments runs on, built once: the pool, the clock, the
 * settings, the tables, the card networks and what decides a payment with them (its
 * settlement lease, the settler, the refund executor). Each operation's room (its NATS
 * face, its flow, its queries) takes from it what it needs; none builds its own. Medium
 * tests build the same context with their own clock.
 */
export function paymentsContext(deps: {
  sql: Sql;
  logger: Logger;
  cardNetworks: Record<'test' | 'live', CardNetwork>;
  config: ContextConfig;
  clock?: () => Date;
  /** Modes without a card network configured: registrations there answer CARDNET502. */
  unconfigured?: readonly ('test' | 'live')[];
  /** Money the card network refunded beyond dzpay's intents (the service counts it). */
  onUnexplainedRefund?: (paymentId: string, amount: number) => void;
}) {
  const { sql, logger, cardNetworks, config } = deps;
  const clock = deps.clock ?? (() => new Date());
  const repository = paymentsRepository(sql, clock);
  const refunds = refundsRepository(sql, clock);
  const keys = idempotencyRepository(sql, secretsKey(config.SECRETS_KEY));
  const withSettlement = settlementLeases({
    repository,
    logger,
    leaseMs: config.SETTLE_LEASE_MS,
    callMs: config.CARDNET_TIMEOUT_MS,
  });
  // A payment opened under an Idempotency-Key (a registration, a payer's form nonce)
  // holds its settlement lease as long as its key's lease: a retry that takes the key
  // over from a dead try takes the payment over too. Registering an order moves no
  // money: nothing under it fences a call on `callMs`.
  const withKeyLease = settlementLeases({
    repository,
    logger,
    leaseMs: config.IDEMPOTENCY_LEASE_MS,
    callMs: config.IDEMPOTENCY_LEASE_MS,
  });
  const executor = refundExecutor({
    refunds,
    cardNetworks,
    logger,
    clock,
    horizonMs: config.REFUND_HORIZON_MS,
    ...(deps.onUnexplainedRefund ? { onUnexplainedRefund: deps.onUnexplainedRefund } : {}),
  });
  const settle = settler({
    repository,
    cardNetworks,
    refunds: executor,
    withSettlement,
    logger,
    clock,
    lateCallHorizonMs: config.REFUND_HORIZON_MS,
  });
  const healthOf = (mode: 'test' | 'live'): NetworkHealth =>
    networkHealth({
      downMs: config.CARDNET_DOWN_MS,
      configured: !(deps.unconfigured ?? []).includes(mode),
    });
  return {
    sql,
    logger,
    clock,
    /** Base URL of the gateway's pages: the card network sends payers back there. */
    publicBaseUrl: config.PUBLIC_BASE_URL,
    /** The payment window (the spec's 15 minutes). */
    windowMs: config.PAYMENT_WINDOW_MS,
    /** How long a press holds a single-use payment link before the card form. */
    pressHoldMs: config.LINK_PRESS_HOLD_MS,
    refundQuietMs: config.REFUND_QUIET_MS,
    health: { test: healthOf('test'), live: healthOf('live') },
    cardNetworks,
    repository,
    refunds,
    keys,
    idempotency: { keys, logger, leaseMs: config.IDEMPOTENCY_LEASE_MS },
    withSettlement,
    withKeyLease,
    executor,
    settle,
  };
}

export type PaymentsContext = ReturnType<typeof paymentsContext>;

/** The context of the NATS faces: where they answer, besides what they run on. */
export interface ServedContext extends PaymentsContext {
  nats: NatsConnection;
  prefix: string;
}

/** What a read-only NATS face needs of it: where it answers, the pool, the clock. */
export type ReadingContext = Pick<ServedContext, 'nats' | 'prefix' | 'sql' | 'logger' | 'clock'>;
