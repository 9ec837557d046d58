import { PaymentEventTypes, type MerchantScope, type PaymentEvent } from '@dzpay/contracts';

/** What a successful payment asks of qr-config: clear the single-use configuration it paid. */
export interface SingleUseClearing extends MerchantScope {
  eventId: string;
  token: string;
  /**
   * The configuration version the payment paid (its epoch): only that version is
   * cleared; one set since replaced it after the attempt started and is kept.
   */
  version: number;
}

/**
 * The clearing a payment event calls for, or null when it concerns no QR code. Static
 * QR payments are AGENCY attempts whose reference is the QR token; a product reference
 * or a hosted-checkout order with the same text is another thing. Events written before
 * attempts carried their kind and epoch name no version and clear nothing: they were
 * handled when they were new.
 */
export function singleUseClearing(event: PaymentEvent): SingleUseClearing | null {
  const { data } = event;
  if (event.type !== PaymentEventTypes.succeeded || data.channel !== 'AGENCY') return null;
  if (data.referenceKind !== 'qr' || data.epoch === undefined) return null;
  return {
    eventId: event.id,
    merchantId: event.merchantId,
    mode: event.mode,
    token: data.reference,
    version: data.epoch,
  };
}
