import type { ClientTransport } from './transport.ts';

/** A merchant's audit log. */
export function auditMethods(_transport: ClientTransport) {
  return {};
}
