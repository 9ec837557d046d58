import { PaymentEventTypes, type MerchantScope, type PaymentEvent } from '@dzpay/contracts';

/** What a successful payment asks of qr-config: clear the single-use configuration it paid. */
export interface SingleUseClearing extends MerchantScope {
  eventId: string;
  token: string;
  /**
   * Only a configuration set at or before this instant can be the one the payer was
   * offered; one set later replaced it after the attempt started and is kept.
   */
  configuredNoLaterThan: string;
}

/**
 * The clearing a payment event calls for, or null when it concerns no QR code. Static
 * QR payments are AGENCY attempts whose reference is the QR token; a hosted-checkout
 * payment with the same reference is an unrelated merchant order.
 *
 * Without the attempt's creation time the success itself bounds it: a configuration
 * set after the payment succeeded was certainly not the one paid.
 */
export function singleUseClearing(event: PaymentEvent): SingleUseClearing | null {
  if (event.type !== PaymentEventTypes.succeeded || event.data.channel !== 'AGENCY') return null;
  return {
    eventId: event.id,
    merchantId: event.merchantId,
    mode: event.mode,
    token: event.data.reference,
    configuredNoLaterThan: event.data.createdAt ?? event.occurredAt,
  };
}
