import type { ClientTransport } from './transport.ts';

/** The back office's qr methods (issue 14). */
export function backOfficeQrMethods(transport: ClientTransport) {
  void transport;
  return {};
}
