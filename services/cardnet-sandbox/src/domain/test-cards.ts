import { isExpired, type CardInput } from './card.ts';

export type Language = 'ar' | 'fr' | 'en';

/**
 * Every verdict the sandbox can give, with the codes SATIM sends for it (actionCode,
 * ISO 8583 respCode) and the text shown to the payer (`respCode_desc`). Negative action
 * codes are decided by the gateway itself, before any issuer saw the card.
 */
export const OUTCOMES = {
  approved: {
    orderStatus: 2,
    actionCode: 0,
    respCode: '00',
    text: { en: 'Payment approved', fr: 'Paiement accepté', ar: 'تمت الموافقة على الدفع' },
  },
  insufficientFunds: {
    orderStatus: 6,
    actionCode: 116,
    respCode: '51',
    text: { en: 'Insufficient funds', fr: 'Provision insuffisante', ar: 'رصيد غير كاف' },
  },
  wrongCvv2: {
    orderStatus: 6,
    actionCode: 111,
    respCode: 'AB',
    text: { en: 'Wrong CVV2', fr: 'CVV2 erroné', ar: 'رمز CVV2 خاطئ' },
  },
  lostCard: {
    orderStatus: 6,
    actionCode: 208,
    respCode: '41',
    text: { en: 'Lost card', fr: 'Carte perdue', ar: 'بطاقة مفقودة' },
  },
  stolenCard: {
    orderStatus: 6,
    actionCode: 209,
    respCode: '43',
    text: { en: 'Stolen card', fr: 'Carte volée', ar: 'بطاقة مسروقة' },
  },
  expiredCard: {
    orderStatus: 6,
    actionCode: -2006,
    respCode: '54',
    text: { en: 'Expired card', fr: 'Carte expirée', ar: 'بطاقة منتهية الصلاحية' },
  },
  unknownCard: {
    orderStatus: 6,
    actionCode: 2001,
    respCode: '14',
    text: { en: 'Card not recognised', fr: 'Carte non reconnue', ar: 'بطاقة غير معروفة' },
  },
  sessionExpired: {
    orderStatus: 6,
    actionCode: -2007,
    respCode: null,
    text: {
      en: 'Payment session expired',
      fr: 'Session de paiement expirée',
      ar: 'انتهت مهلة الدفع',
    },
  },
  /** Not a card verdict: reverse.do closed the order before anybody paid it. */
  cancelled: {
    orderStatus: 3,
    actionCode: 10,
    respCode: null,
    text: { en: 'Order cancelled', fr: 'Commande annulée', ar: 'تم إلغاء الطلب' },
  },
} as const;
export type OutcomeName = keyof typeof OUTCOMES;

/**
 * The test cards, all Luhn-valid with the 628058 prefix. Any future expiry and any CVV2
 * work unless the rules of `judgeCard` say otherwise. `docs/cardnet-sandbox.md` lists
 * the same table.
 */
export const TEST_CARDS = {
  '6280580000000009': { outcome: 'approved', hangsAtConfirm: false },
  '6280580000000017': { outcome: 'insufficientFunds', hangsAtConfirm: false },
  '6280580000000025': { outcome: 'lostCard', hangsAtConfirm: false },
  '6280580000000033': { outcome: 'stolenCard', hangsAtConfirm: false },
  // Deposited like an approved card, but confirmOrder.do answers only after
  // SANDBOX_CONFIRM_DELAY_MS: the network timeout a client must survive.
  '6280580000000041': { outcome: 'approved', hangsAtConfirm: true },
} as const satisfies Record<string, { outcome: OutcomeName; hangsAtConfirm: boolean }>;

/**
 * register.do with this amount (66 666,00 DZD) answers HTTP 503 with an HTML body, as
 * when the network is down: the case behind CARDNET502_REGISTRATION_FAILED.
 */
export const UNAVAILABLE_AMOUNT = 6_666_600;

/** The CVV2 that the approved cards reject as wrong. */
export const WRONG_CVV2 = '000';

export interface Verdict {
  outcome: OutcomeName;
  hangsAtConfirm: boolean;
}

/**
 * What the network answers for a card, in the order a real authorisation checks: the
 * card must be known, not expired, and its CVV2 right, before the issuer's own answer.
 */
export function judgeCard(card: CardInput, now: Date): Verdict {
  const known = (TEST_CARDS as Record<string, Verdict | undefined>)[card.pan];
  if (!known) return { outcome: 'unknownCard', hangsAtConfirm: false };
  if (isExpired(card, now)) return { outcome: 'expiredCard', hangsAtConfirm: false };
  if (known.outcome === 'approved' && card.cvv === WRONG_CVV2)
    return { outcome: 'wrongCvv2', hangsAtConfirm: false };
  return known;
}
