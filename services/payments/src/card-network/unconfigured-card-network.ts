import { CardNetworkError, type CardNetwork } from './card-network.ts';

/**
 * The card network of a mode that has none configured (live, on a machine without
 * SATIM credentials): every call fails as "unavailable", so live registrations answer
 * CARDNET502 instead of reaching a wrong host.
 */
export function unconfiguredCardNetwork(mode: string): CardNetwork {
  const refuse = (operation: string) => () =>
    Promise.reject(
      new CardNetworkError('unavailable', operation, `no card network configured for ${mode} mode`),
    );
  return {
    register: refuse('register'),
    status: refuse('status'),
    confirm: refuse('confirm'),
    refund: refuse('refund'),
    reverse: refuse('reverse'),
    orders: refuse('orders'),
  };
}
