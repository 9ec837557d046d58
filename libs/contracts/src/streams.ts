import {
  FORMER_PAYMENT_EVENT_SUBJECTS,
  FORMER_WEBHOOK_EVENT_SUBJECTS,
  paymentEventsSubject,
  webhookEventsSubject,
} from './event-subjects.ts';
import { PaymentEventTypes } from './events.ts';

/**
 * JetStream streams, the subjects they hold and, while they may still hold some, the
 * subjects their events had before (event-subjects.ts). The deployment prefix is added.
 */
export const Streams = {
  payments: {
    name: 'PAYMENTS',
    subjects: ['payments.events.>'],
    formerSubjects: [FORMER_PAYMENT_EVENT_SUBJECTS],
  },
  webhooks: {
    name: 'WEBHOOKS',
    subjects: ['webhooks.events.>'],
    formerSubjects: [FORMER_WEBHOOK_EVENT_SUBJECTS],
  },
} as const;

/** A durable pull consumer of one stream, and the one subject the server filters it on. */
export interface DurableConsumerSpec {
  stream: keyof typeof Streams;
  /** Its name, unless the deployment renames it (STATUS_CONSUMER, WEBHOOK_CONSUMER). */
  durable: string;
  /** The events its service acts on, without the prefix: the server delivers no other. */
  filterSubject: string;
  /** Shown by `nats consumer info`. */
  description: string;
}

const STATUS_CONSUMER = 'status-projection';

/**
 * Every durable consumer a service reads through, with what it reads: each filter is
 * what the reader's code acts on, so it is never handed an event only to drop it.
 */
export const DurableConsumers = {
  /** Status records exist for AGENCY attempts only (attemptUpdateOf), of every type. */
  statusPayments: {
    stream: 'payments',
    durable: STATUS_CONSUMER,
    filterSubject: paymentEventsSubject({ channel: 'AGENCY' }),
    description: 'status: projects AGENCY attempts into status records',
  },
  /** An AGENCY attempt's outcome webhook is its record's `payment.webhookDelivery`. */
  statusWebhooks: {
    stream: 'webhooks',
    durable: statusWebhooksDurable(STATUS_CONSUMER),
    filterSubject: webhookEventsSubject({ channel: 'AGENCY' }),
    description: "status: projects AGENCY outcome webhooks' deliveries into status records",
  },
  /** A webhook tells a decided payment (webhookOf): succeeded, failed, refunded. */
  dispatcherPayments: {
    stream: 'payments',
    durable: 'webhook-dispatcher',
    filterSubject: paymentEventsSubject({ phase: 'decided' }),
    description: 'webhook-dispatcher: enqueues the webhooks of decided payments',
  },
  /** Only a QR code's successful payment clears its single-use configuration. */
  qrConfigSingleUse: {
    stream: 'payments',
    durable: 'qr-config-single-use',
    filterSubject: paymentEventsSubject({
      channel: 'AGENCY',
      referenceKind: 'qr',
      type: PaymentEventTypes.succeeded,
    }),
    description: 'qr-config: clears single-use QR configurations after a successful payment',
  },
} as const satisfies Record<string, DurableConsumerSpec>;

/** Status' consumer of WEBHOOKS is named after its consumer of PAYMENTS (STATUS_CONSUMER). */
export function statusWebhooksDurable(statusConsumer: string): string {
  return `${statusConsumer}-webhooks`;
}
