/**
 * The card network's order as payments reasons about it: the network's order model
 * (register, pay on its form, confirm, refund, reverse), not SATIM's wire format. The
 * adapters translate their protocol into it.
 */
export type OrderState =
  'registered' | 'preauthorized' | 'deposited' | 'reversed' | 'refunded' | 'declined' | 'failed';

export interface CardOrderStatus {
  orderId: string;
  orderNumber: string;
  state: OrderState;
  /** Centimes. */
  amount: number;
  refundedAmount: number;
  actionCode: number | null;
  /** ISO 8583 response code; "00" is approved. */
  respCode: string | null;
  /** The network's text for the outcome, the one meant for the payer. */
  description: string | null;
  approvalCode: string | null;
  /** First 6 + ** + last 4. */
  maskedPan: string | null;
  /** When the card was authorised; null until then or when the network does not say. */
  authorizedAt: Date | null;
}
