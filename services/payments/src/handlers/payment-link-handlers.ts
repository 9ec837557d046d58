import type { RpcServer } from '@dzpay/platform';
import type { PaymentsCore } from '../core.ts';
import type { ServiceWiring } from './service-wiring.ts';

/** Where a payment made through a link sends its payer (the payments' own settings). */
export interface PaymentLinkSettings {
  publicBaseUrl: string;
  windowMs: number;
}

/** payments.links.*: payment links, and the payments their payers make. */
export async function servePaymentLinkHandlers(
  _wiring: ServiceWiring,
  _core: PaymentsCore,
  _settings: PaymentLinkSettings,
): Promise<RpcServer[]> {
  return [];
}
