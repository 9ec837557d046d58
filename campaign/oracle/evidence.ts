/**
 * What the oracle reads, declared here and nowhere in dzpay: raw rows of the payments
 * schema, the card network sandbox's ledger, and what the actors and the partner saw.
 * None of it comes from a dzpay type, so a change to dzpay's code cannot quietly change
 * what the oracle believes (README.md).
 */

/** Epoch milliseconds. */
export type Millis = number;

/** One check's verdict: how many things it looked at, and what broke it. */
export interface Verdict {
  name: string;
  checked: number;
  violations: string[];
}

type PaymentStatus = 'pending' | 'processing' | 'success' | 'failed' | 'refunded';

/** A row of `payments.payments`, as postgres.js reads it (bigint columns as numbers). */
export interface PaymentRow {
  id: string;
  merchant_id: string;
  mode: string;
  /** `CHECKOUT` or `AGENCY`. */
  channel: string;
  reference: string;
  /** `order`, `product` or `qr`. */
  reference_kind: string;
  epoch: number;
  status: PaymentStatus;
  /** Centimes, before the fee. */
  amount: number;
  /** Centimes, fee included: what the card is charged. */
  total: number;
  currency: string;
  cardnet_order_id: string | null;
  /** Centimes. */
  refunded_amount: number;
  refund_due: boolean;
  locks_reference: boolean;
  awaiting_verdict: boolean;
  failure_reason: string | null;
  expires_at: Date;
  paid_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A row of `payments.refunds`: a refund intent. */
export interface RefundRow {
  id: string;
  payment_id: string;
  /** Centimes. */
  amount: number;
  reason: string;
  state: 'requested' | 'succeeded' | 'failed';
  /** The entry of the order's refund history it is: an RRN, or `#index`; null if unknown. */
  network_reference: string | null;
  /** When it last changed (for a succeeded one, when it was confirmed); the balance reads it. */
  updated_at?: Date;
}

/** BPC order status: 0 registered, 1 pre-authorised, 2 deposited, 3 reversed, 4 refunded, 6 declined. */
type OrderStatus = 0 | 1 | 2 | 3 | 4 | 6;

/** One order of the sandbox's ledger (`GET /_control/ledger`), the fields the oracle reads. */
export interface LedgerOrder {
  orderId: string;
  /** Centimes. */
  amount: number;
  status: OrderStatus;
  refundedAmount: number;
  /** dzpay's payment id (its adapter puts it in jsonParams.udf1). */
  udf1: string | null;
  refunds: readonly { amount: number; at: string; referenceNumber: string }[];
  /** Every operation the network executed, oldest first, with the order's status after it. */
  operations: readonly {
    operation: string;
    /** ISO-8601. */
    at: string;
    orderStatus: OrderStatus;
    amount?: number;
    referenceNumber?: string;
  }[];
}

export type Stage = 'locked' | 'paid' | 'released' | 'refunded' | 'not_found';

/** The spec's payment status record (`data` of the status endpoint), the fields compared. */
export interface StatusRecord {
  reference: string;
  stage: Stage;
  locked: boolean;
  paid: boolean;
  lockReleaseTime: string | null;
  paymentId: string | null;
  currency: string;
  /** DZD. */
  amount: number | null;
  payment: {
    paymentId: string;
    status: string;
    /** DZD. */
    amount: number;
    currency: string;
    paidAt: string | null;
    orderId: string | null;
  } | null;
}

/** A status answer fetched once the system settled (stage.ts compares it). */
export interface StatusAnswer {
  merchantId: string;
  mode: string;
  /** The reference asked, as sent. */
  reference: string;
  /** When the answer arrived. */
  at: Millis;
  /** The HTTP status; the record only with 200. */
  httpStatus: number;
  record: StatusRecord | null;
}

/** One status read made during the run (status-samples.ts). */
export interface StatusSample {
  /** When the request was sent; `at` when absent. */
  sentAt?: Millis;
  /** When the answer arrived. */
  at: Millis;
  merchantIndex: number;
  reference: string;
  stage: Stage;
  paymentId: string | null;
  paymentStatus: string | null;
  locked: boolean;
  paid: boolean;
}

/**
 * A payer on the card network's card form (held.ts): from the moment the payer actor
 * received the form's URL (dzpay had committed the attempt and registered its order by
 * then) until it sent the form. The order is the form's `mdOrder`; the ledger's `udf1`
 * names dzpay's payment, whose row gives the merchant, mode and canonical reference.
 */
export interface CardFormVisit {
  /** The card network's order id (`mdOrder` of the form's URL). */
  mdOrder: string;
  /** When the payer had the form's URL (the 303 to it arrived). */
  reachedAt: Millis;
  /** When the payer sent the form (its first submission); null if it never did. */
  submittedAt: Millis | null;
}

/** A webhook as the partner received it (campaign/partner.ts ReceivedWebhook fits). */
export interface WebhookSeen {
  /** The index of the merchant whose endpoint took it. */
  merchant: number;
  at: Millis;
  event: {
    id: string;
    type: string;
    createdAt: string;
    data: {
      paymentId: string;
      reference: string;
      channel: string;
      /** DZD: the attempt's amount; on payment.refunded, this refund's. */
      amount: number;
      currency: string;
      status: string;
      orderId: string | null;
      paidAt: string | null;
      failureReason: string | null;
      /** payment.refunded: the payment's refunded total after this refund, DZD. */
      refundedAmount?: number;
    };
  };
}

/** A refund dzpay acknowledged: 200 (`succeeded`) or 202 (`pending`), from `data.refund`. */
export interface RefundAck {
  paymentId: string;
  refundId: string;
  /** Centimes. */
  amount: number;
  status: 'succeeded' | 'pending';
}

/** One discrepancy of the reconciler's report (`pnpm dzpay reconcile`, payments.reconcile). */
interface Discrepancy {
  kind: string;
  paymentId?: string | null;
  orderId?: string | null;
  amount?: number;
  outcome?: string;
  detail?: string;
}

/** The reconciler's report, the fields the oracle reads. */
export interface ReconciliationReport {
  ran: boolean;
  reason?: string | null;
  modes?: readonly { mode: string; outcome: string; reason?: string | null; ordersSeen: number }[];
  counts: { ordersSeen: number; paymentsMatched: number };
  discrepancies: readonly Discrepancy[];
}

/** Counts of what the run did, by action: coverage.ts holds them against floors. */
export type Counters = Readonly<Record<string, number>>;
