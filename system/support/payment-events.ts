import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { PaymentEvent, Streams } from '@dzpay/contracts';
import { streamName, type NatsConnection } from '@dzpay/platform';

/** Every event on this run's PAYMENTS stream, read with an ordered consumer. */
async function readPaymentEvents(nc: NatsConnection, prefix: string): Promise<PaymentEvent[]> {
  const name = streamName(prefix, Streams.payments.name);
  const jsm = await jetstreamManager(nc);
  const count = (await jsm.streams.info(name)).state.messages;
  if (count === 0) return [];
  const consumer = await jetstream(nc).consumers.get(name);
  const events: PaymentEvent[] = [];
  const messages = await consumer.fetch({ max_messages: count, expires: 2_000 });
  for await (const message of messages) {
    events.push(PaymentEvent.parse(message.json()));
    if (events.length === count) break;
  }
  return events;
}

/** The event types of one payment, in stream order. */
export async function eventTypesOf(
  nc: NatsConnection,
  prefix: string,
  paymentId: string,
): Promise<string[]> {
  const events = await readPaymentEvents(nc, prefix);
  return events.filter((event) => event.data.paymentId === paymentId).map((event) => event.type);
}
