/**
 * The failure reasons dzpay writes itself into a payment's `failureReason`; any other
 * reason is the card network's own text, in the payment's language. Pages translate
 * these by their value.
 */
export const FailureReasons = {
  /** The payment window closed before the payer paid. */
  expired: 'expired',
  /** The merchant cancelled it before it was paid. */
  cancelled: 'cancelled',
  /** Another attempt of the same sale was paid first: this card's charge is refunded. */
  alreadyPaid: 'already paid',
  /** The card network could not be reached to open the payment. */
  registrationFailed: 'card network unavailable at registration',
  /** Declined, with neither a text nor a code from the network. */
  declined: 'declined',
} as const;

const DECLINED_WITH_CODE = /^declined \(action code (-?\d+)\)$/;

/** A decline the network gave only its action code for. */
export function declinedWithCode(actionCode: number): string {
  return `declined (action code ${actionCode})`;
}

/** The action code of a reason written by declinedWithCode, else null. */
export function actionCodeOfDecline(reason: string): string | null {
  return DECLINED_WITH_CODE.exec(reason)?.[1] ?? null;
}
