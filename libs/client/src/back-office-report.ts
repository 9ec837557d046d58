import type { ClientTransport } from './transport.ts';

/** The back office's daily report method (issue 14). */
export function backOfficeReportMethods(transport: ClientTransport) {
  void transport;
  return {};
}
