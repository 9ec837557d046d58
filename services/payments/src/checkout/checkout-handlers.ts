import { isUuid, Rpc, type CheckoutView } from '@dzpay/contracts';
import { AppError, serveRpc, type RpcServer } from '@dzpay/platform';
import { checkoutStatusOf, isOpen } from '../domain/checkout-status.ts';
import type { PaymentRecord } from '../domain/payment-record.ts';
import { withReference } from './return-url.ts';
import { hashToken } from '../domain/tokens.ts';
import type { ServedContext } from '../context.ts';
import { orderPlacer } from '../lifecycle/place-order.ts';

/**
 * The payer's side of a hosted checkout: what the page shows, going on to the card
 * network's form, and coming back from it. The checkout token is the payer's only key.
 */
export function serveCheckoutHandlers(ctx: ServedContext): Promise<RpcServer[]> {
  const { nats, prefix, repository, settle, logger, clock } = ctx;
  // The card network's order of a hosted checkout, registered when its payer goes on to pay.
  const placeOrder = orderPlacer(ctx);

  /** The attempt, its outcome brought up to date when its window closed. */
  const settledIfClosed = (record: PaymentRecord): Promise<PaymentRecord> | PaymentRecord =>
    isOpen(record.status) && clock() >= record.expiresAt ? settle.reconcile(record) : record;

  /** The attempt behind a token, settled when its window closed. */
  async function current(token: string): Promise<PaymentRecord> {
    const record = await repository.findByTokenHash(hashToken(token));
    if (!record) throw new AppError('CHECKOUT404_NOT_FOUND', 'checkout link not found');
    return settledIfClosed(record);
  }

  return Promise.all([
    serveRpc(
      nats,
      prefix,
      Rpc.checkoutView,
      async ({ token }) => checkoutView(await current(token)),
      logger,
    ),

    serveRpc(
      nats,
      prefix,
      Rpc.checkoutStart,
      async ({ token }) => {
        // Placing the order may take seconds: a window that closed meanwhile hands out no
        // card form (the order is reversed when the attempt is settled).
        let record = await settledIfClosed(await placeOrder(await current(token)));
        if (record.status === 'pending' && record.cardnetFormUrl) {
          record =
            (await repository.transition(
              record.id,
              ['pending'],
              { status: 'processing' },
              'payment.processing',
            )) ??
            // Another click moved it first: what it is now.
            (await repository.findById(record.id)) ??
            record;
        }
        const payable = record.status === 'processing' && record.cardnetFormUrl;
        return { view: checkoutView(record), formUrl: payable ? record.cardnetFormUrl : null };
      },
      logger,
    ),

    serveRpc(
      nats,
      prefix,
      Rpc.checkoutReturn,
      async ({ paymentId }) => {
        const record = isUuid(paymentId) ? await repository.findById(paymentId) : null;
        if (!record) throw new AppError('CHECKOUT404_NOT_FOUND', 'payment not found');
        return checkoutView(await settle.confirm(record));
      },
      logger,
    ),
  ]);
}

/** What the payer may see, and where to send them once the outcome is known. */
function checkoutView(record: PaymentRecord): CheckoutView {
  const status = checkoutStatusOf(record.status, record.failureReason);
  const target =
    status === 'success'
      ? record.successUrl
      : status === 'created' || status === 'processing'
        ? null
        : record.failureUrl;
  return {
    paymentId: record.id,
    merchantName: record.merchantName,
    reference: record.reference,
    amount: record.amount,
    fees: record.fee,
    total: record.total,
    currency: record.currency,
    language: record.language,
    status,
    expiresAt: record.expiresAt.toISOString(),
    redirectUrl: target ? withReference(target, record.reference) : null,
  };
}
