import type { RpcServer } from '@dzpay/platform';
import type { ServiceWiring } from './service-wiring.ts';

/** payments.balance.get, payments.payouts.*, payments.statement.get. */
export async function serveBalanceHandlers(_wiring: ServiceWiring): Promise<RpcServer[]> {
  return [];
}
