import type { Tx } from '@dzpay/platform';
import type { PaymentRecord } from '../domain/payment-record.ts';
import { toRecord, type Row } from './payment-rows.ts';

/** A payment as it is inserted: the record's columns known before anything happened to it. */
export type NewPayment = Omit<
  PaymentRecord,
  | 'orderNumber'
  | 'cardnetOrderId'
  | 'cardnetFormUrl'
  | 'approvalCode'
  | 'maskedPan'
  | 'actionCode'
  | 'refundedAmount'
  | 'pendingRefund'
  | 'refundDue'
  | 'awaitingVerdict'
  | 'reverseAskedAt'
  | 'paidAt'
  | 'sweepFailures'
  | 'createdAt'
  | 'updatedAt'
  | 'failureReason'
> & { checkoutTokenHash: Buffer };

/** A payment to insert, and what it is born with besides its own columns. */
export interface PaymentInsert {
  payment: NewPayment;
  /** Born under this settlement lease (its registration talks to the card network). */
  lease?: { id: string; ms: number };
  /** The payment link it is made through; `once` takes a single-use link's one sale. */
  link?: { id: string; once: boolean };
}

/**
 * The one insert of payments, for one registration or a batch of them: each row takes
 * its order number as it is inserted (next_order_number(), migration 017), rows in the
 * order of their reference (the same order on every replica, so two batches never wait
 * on each other's rows). A row whose reference or sale is taken is skipped (`on conflict
 * do nothing`: an order number used, a sale another attempt holds or paid, a single-use
 * link held). Answers the inserted ones by id.
 */
export async function insertPayments(
  tx: Tx,
  inserts: readonly PaymentInsert[],
): Promise<Map<string, PaymentRecord>> {
  if (inserts.length === 0) return new Map();
  const sorted = [...inserts].sort((a, b) =>
    a.payment.reference < b.payment.reference
      ? -1
      : a.payment.reference > b.payment.reference
        ? 1
        : 0,
  );
  const rows = sorted.map(({ payment, lease, link }) => ({
    id: payment.id,
    merchantId: payment.merchantId,
    mode: payment.mode,
    channel: payment.channel,
    reference: payment.reference,
    referenceKind: payment.referenceKind,
    epoch: payment.epoch,
    merchantName: payment.merchantName,
    amount: payment.amount,
    fee: payment.fee,
    total: payment.total,
    currency: payment.currency,
    language: payment.language,
    status: payment.status,
    successUrl: payment.successUrl,
    failureUrl: payment.failureUrl,
    metadata: payment.metadata,
    checkoutTokenHash: payment.checkoutTokenHash.toString('hex'),
    expiresAt: payment.expiresAt.toISOString(),
    locksReference: payment.locksReference,
    productLabel: payment.productLabel,
    lease: lease?.id ?? null,
    leaseMs: lease?.ms ?? null,
    linkId: link?.id ?? null,
    linkOnce: link?.once ?? false,
  }));
  const inserted = await tx<Row[]>`
    insert into payments (id, merchant_id, mode, channel, reference, reference_kind, epoch,
      merchant_name, amount, fee, total, currency, language, status, success_url,
      failure_url, metadata, checkout_token_hash, order_number, expires_at,
      locks_reference, product_label, settle_lease, settle_lease_until,
      payment_link_id, payment_link_once)
    select id, "merchantId", mode, channel, reference, "referenceKind", epoch,
      "merchantName", amount, fee, total, currency, language, status, "successUrl",
      "failureUrl", metadata, decode("checkoutTokenHash", 'hex'), next_order_number(),
      "expiresAt", "locksReference", "productLabel", lease,
      now() + "leaseMs" * interval '1 millisecond', "linkId", "linkOnce"
    from jsonb_to_recordset(${tx.json(rows as never)}) as x(id uuid, "merchantId" uuid,
      mode text, channel text, reference text, "referenceKind" text, epoch int,
      "merchantName" text, amount bigint, fee bigint, total bigint, currency text,
      language text, status text, "successUrl" text, "failureUrl" text, metadata jsonb,
      "checkoutTokenHash" text, "expiresAt" timestamptz, "locksReference" boolean,
      "productLabel" text, lease uuid, "leaseMs" bigint, "linkId" uuid, "linkOnce" boolean)
    on conflict do nothing
    returning *`;
  return new Map(inserted.map((row) => [row.id as string, toRecord(row)]));
}
