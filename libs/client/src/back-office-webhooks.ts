import type { ClientTransport } from './transport.ts';

/** The back office's webhooks methods (issue 14). */
export function backOfficeWebhooksMethods(transport: ClientTransport) {
  void transport;
  return {};
}
