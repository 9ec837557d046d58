import { z } from 'zod';
import { Mode } from './scope.ts';

/** Every payment fact published on the PAYMENTS stream, named entity.verb. */
export const PaymentEventTypes = {
  created: 'payment.created',
  processing: 'payment.processing',
  succeeded: 'payment.succeeded',
  failed: 'payment.failed',
  refunded: 'payment.refunded',
} as const;
export const PaymentEventType = z.enum(Object.values(PaymentEventTypes) as [string, ...string[]]);
export type PaymentEventType = (typeof PaymentEventTypes)[keyof typeof PaymentEventTypes];

/** What an attempt's reference names; see PaymentEventData.referenceKind. */
export const ReferenceKind = z.enum(['order', 'product', 'qr']);
export type ReferenceKind = z.infer<typeof ReferenceKind>;

/** The internal status of an attempt (the hosted-checkout API shows `pending` as `created`). */
export const PaymentStatus = z.enum(['pending', 'processing', 'success', 'failed', 'refunded']);
export type PaymentStatus = z.infer<typeof PaymentStatus>;

const PaymentEventData = z.object({
  paymentId: z.uuid(),
  reference: z.string(),
  channel: z.enum(['CHECKOUT', 'AGENCY']),
  amount: z.int(),
  fees: z.int(),
  total: z.int(),
  currency: z.string(),
  status: PaymentStatus,
  orderId: z.string().nullable(),
  approvalCode: z.string().nullable(),
  maskedPan: z.string().nullable(),
  failureReason: z.string().nullable(),
  refundedAmount: z.int(),
  paidAt: z.iso.datetime().nullable(),
  metadata: z.record(z.string(), z.json()).nullable(),
  /**
   * AGENCY attempts: when the lock on the reference expires; null while the card network
   * holds the order (the lock then has no expiry but is held). Absent for CHECKOUT.
   */
  lockExpiresAt: z.iso.datetime().nullable().optional(),
  /** AGENCY attempts: whether the attempt holds its reference at all (a multi-use QR code does not). */
  locksReference: z.boolean().optional(),
  /** When the event's attempt was created (the status record's createdAt). */
  createdAt: z.iso.datetime().optional(),
  /**
   * What the reference names: a merchant's order (CHECKOUT), a partner's product or a
   * QR code's token. Each kind is its own namespace. Absent in events written before it.
   */
  referenceKind: ReferenceKind.optional(),
  /**
   * The sale the attempt belongs to: 0 for a product (sold once), the configuration
   * version for a QR code. At most one attempt succeeds per reference and epoch.
   */
  epoch: z.int().nonnegative().optional(),
  /**
   * Where this state stands among its payment's states: the payment counts its changes,
   * so of two events of one payment the higher version is the newer state, whatever
   * their order in the stream (the relay publishes by transaction start, not commit).
   * Not the envelope's `version`, which is the schema's. Absent in events written before.
   */
  version: z.int().positive().optional(),
});
type PaymentEventData = z.infer<typeof PaymentEventData>;

/**
 * What payments adds to a `payment.refunded` event beyond PaymentEventData: the amount
 * of this one refund (centimes). Read from the raw event, as PaymentEventData drops it.
 */
export const RefundEventExtra = z.object({
  data: z.object({ refundAmount: z.int().positive().optional() }),
});

/** The envelope of every event (ARCHITECTURE.md §5); `id` is also the Nats-Msg-Id. */
export const PaymentEvent = z.object({
  id: z.uuid(),
  type: PaymentEventType,
  version: z.literal(1),
  occurredAt: z.iso.datetime(),
  merchantId: z.uuid(),
  mode: Mode,
  data: PaymentEventData,
});
export type PaymentEvent = z.infer<typeof PaymentEvent>;
