import type { ClientTransport } from './transport.ts';

/** The back office's payments methods (issue 14). */
export function backOfficePaymentsMethods(transport: ClientTransport) {
  void transport;
  return {};
}
