import { Rpc, type PaymentEvent, type StatusSubject } from '@dzpay/contracts';
import { createLogger, serveRpc, type NatsConnection, type RpcServer } from '@dzpay/platform';

/**
 * Payments' side of `payments.reference.held`, played by the test: status's tests play
 * payments through the stream (they publish its events), so they play its rows too.
 * `holding` says which attempts payments' rows hold for a reference; by default none,
 * which is what payments answers for attempts that exist only as published events.
 */
export async function servePaymentsRows(
  nats: NatsConnection,
  prefix: string,
  holding: (subject: StatusSubject) => PaymentEvent[] = () => [],
): Promise<RpcServer & { asked: () => number }> {
  let asked = 0;
  const server = await serveRpc(
    nats,
    prefix,
    Rpc.referenceHeld,
    (subject) => {
      asked++;
      return Promise.resolve({ attempts: holding(subject) });
    },
    createLogger('payments-stand-in', 'silent'),
  );
  return { ...server, asked: () => asked };
}
