import { Counter, Histogram, type Registry } from 'prom-client';
import { CardNetworkError, type CardNetwork } from './card-network.ts';

/**
 * The card network with every call timed and its failures counted, by operation and
 * mode: what an SRE looks at first when payers cannot pay (docs/runbook.md).
 */
export function measuredCardNetworks<N extends Record<'test' | 'live', CardNetwork>>(
  networks: N,
  registry: Registry,
): N {
  const seconds = new Histogram({
    name: 'dzpay_cardnet_request_duration_seconds',
    help: 'Card network calls, by operation, mode and outcome (ok, unavailable, timeout, refused, order-unknown, error)',
    labelNames: ['operation', 'mode', 'outcome'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const errors = new Counter({
    name: 'dzpay_cardnet_errors_total',
    help: 'Card network calls that failed, by operation, mode and kind',
    labelNames: ['operation', 'mode', 'kind'],
    registers: [registry],
  });

  const accessDenied = new Counter({
    name: 'dzpay_cardnet_access_denied_total',
    help: 'Card network calls refused for our credentials (errorCode 5: wrong, rotated, or the API user must change its password); an operator must act (docs/runbook.md)',
    labelNames: ['operation', 'mode'],
    registers: [registry],
  });

  const measured = (mode: 'test' | 'live', network: CardNetwork): CardNetwork => {
    const timed =
      <A extends unknown[], R>(operation: string, call: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        const end = seconds.startTimer({ operation, mode });
        try {
          const result = await call(...args);
          end({ outcome: 'ok' });
          return result;
        } catch (error) {
          const kind = error instanceof CardNetworkError ? error.kind : 'error';
          end({ outcome: kind });
          errors.inc({ operation, mode, kind });
          if (error instanceof CardNetworkError && error.meaning === 'access-denied') {
            accessDenied.inc({ operation, mode });
          }
          throw error;
        }
      };
    return {
      register: timed('register', (order) => network.register(order)),
      status: timed('status', (orderId) => network.status(orderId)),
      confirm: timed('confirm', (orderId) => network.confirm(orderId)),
      refund: timed('refund', (orderId: string, amount: number) => network.refund(orderId, amount)),
      reverse: timed('reverse', (orderId) => network.reverse(orderId)),
      orders: timed('orders', (query) => network.orders(query)),
    };
  };
  return {
    ...networks,
    test: measured('test', networks.test),
    live: measured('live', networks.live),
  };
}
