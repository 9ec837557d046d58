import { secretsKey, type Logger, type Sql } from '@dzpay/platform';
import type { CardNetwork } from './adapters/cardnet/card-network.ts';
import { idempotencyRepository } from './adapters/idempotency-repository.ts';
import { paymentsRepository } from './adapters/payments-repository.ts';
import { registrationWriter } from './adapters/registration-writer.ts';
import { refundsRepository } from './adapters/refunds-repository.ts';
import type { PaymentsEnv } from './config.ts';
import { networkHealth, type NetworkHealth } from './domain/network-health.ts';
import { refundExecutor } from './handlers/refund-executor.ts';
import { refunder } from './handlers/refund.ts';
import { settler } from './handlers/settle.ts';
import { settlementRunner } from './handlers/settlement.ts';

/**
 * The money-moving parts of payments over one pool and one set of card networks: the
 * repositories, settlement under leases, refunds through intents, and idempotency keys.
 * The service wires its handlers and sweeper to it; medium tests build the same parts
 * with their own clock.
 */
export function paymentsCore(deps: {
  sql: Sql;
  logger: Logger;
  cardNetworks: Record<'test' | 'live', CardNetwork>;
  config: Pick<
    PaymentsEnv,
    | 'SETTLE_LEASE_MS'
    | 'IDEMPOTENCY_LEASE_MS'
    | 'REFUND_QUIET_MS'
    | 'REFUND_HORIZON_MS'
    | 'CARDNET_TIMEOUT_MS'
    | 'SECRETS_KEY'
    | 'CARDNET_DOWN_MS'
  >;
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
  const withSettlement = settlementRunner({
    repository,
    logger,
    leaseMs: config.SETTLE_LEASE_MS,
    callMs: config.CARDNET_TIMEOUT_MS,
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
    clock,
    health: { test: healthOf('test'), live: healthOf('live') },
    registrations: registrationWriter(sql, keys.seal, clock),
    refundQuietMs: config.REFUND_QUIET_MS,
    repository,
    cardNetworks,
    refunds,
    keys,
    withSettlement,
    settle,
    refund: refunder({ repository, refunds, executor, withSettlement, cardNetworks }),
    idempotency: { keys, logger, leaseMs: config.IDEMPOTENCY_LEASE_MS },
  };
}

export type PaymentsCore = ReturnType<typeof paymentsCore>;
