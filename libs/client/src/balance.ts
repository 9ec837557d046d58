import type { ClientTransport } from './transport.ts';

/** A merchant's balance, payouts and statements. */
export function balanceMethods(_transport: ClientTransport) {
  return {};
}
