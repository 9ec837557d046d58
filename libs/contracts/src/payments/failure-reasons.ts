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

/**
 * The card network's own texts (`respCode_desc` / `actionCodeDescription`, in the payment's
 * language: ar, fr or en) for the action codes SATIM sends on a decline, as its test cards
 * and the sandbox give them (docs/cardnet-sandbox.md, "Action codes the sandbox uses").
 * A reason that is one of these names its code, so a page in another language than the
 * payment's says what the code means rather than showing the network's words.
 */
const NETWORK_TEXTS: Readonly<Record<string, readonly string[]>> = {
  '116': ['Insufficient funds', 'Provision insuffisante', 'رصيد غير كاف'],
  '111': ['Wrong CVV2', 'CVV2 erroné', 'رمز CVV2 خاطئ'],
  '208': ['Lost card', 'Carte perdue', 'بطاقة مفقودة'],
  '209': ['Stolen card', 'Carte volée', 'بطاقة مسروقة'],
  '-2006': ['Expired card', 'Carte expirée', 'بطاقة منتهية الصلاحية'],
  '2001': ['Card not recognised', 'Carte non reconnue', 'بطاقة غير معروفة'],
  '-2007': ['Payment session expired', 'Session de paiement expirée', 'انتهت مهلة الدفع'],
  '10': ['Order cancelled', 'Commande annulée', 'تم إلغاء الطلب'],
};

/** Texts compare without case, accents' composition or surrounding spaces and periods. */
const comparable = (text: string) =>
  text
    .normalize('NFC')
    .trim()
    .replace(/[.。]+$/u, '')
    .toLocaleLowerCase('fr');

const CODE_OF_TEXT = new Map(
  Object.entries(NETWORK_TEXTS).flatMap(([code, texts]) =>
    texts.map((text) => [comparable(text), code] as const),
  ),
);

/**
 * The action code a decline's reason stands for, else null: the code of a reason written
 * by declinedWithCode, or of a card network text known to mean it (NETWORK_TEXTS), in
 * whichever language the payment had. Pages say the code's meaning in their own language.
 */
export function actionCodeOfDecline(reason: string): string | null {
  return DECLINED_WITH_CODE.exec(reason)?.[1] ?? CODE_OF_TEXT.get(comparable(reason)) ?? null;
}
