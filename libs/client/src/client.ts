import { auditMethods } from './audit.ts';
import { balanceMethods } from './balance.ts';
import { paymentLinksMethods } from './payment-links.ts';
import { paymentsMethods } from './payments.ts';
import { qrCodesMethods } from './qr-codes.ts';
import { reportsMethods } from './reports.ts';
import { clientTransport, type DzpayClientOptions } from './transport.ts';
import { webhooksMethods } from './webhooks.ts';

/**
 * dzpay's merchant API, typed by the contracts: request bodies are the schemas' input
 * types, and every success body is parsed with the schema the gateway answers with, so
 * a response that does not match the contract fails loudly here rather than later.
 */
export function dzpayClient(options: DzpayClientOptions) {
  const transport = clientTransport(options);
  return {
    ...paymentsMethods(transport),
    ...qrCodesMethods(transport),
    ...reportsMethods(transport),
    ...webhooksMethods(transport),
    ...paymentLinksMethods(transport),
    ...balanceMethods(transport),
    ...auditMethods(transport),
  };
}

export type DzpayClient = ReturnType<typeof dzpayClient>;
