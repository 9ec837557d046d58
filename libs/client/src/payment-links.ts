import type { ClientTransport } from './transport.ts';

/** A merchant's payment links. */
export function paymentLinksMethods(_transport: ClientTransport) {
  return {};
}
