import type { Language } from '@dzpay/contracts';

/**
 * Ends a sentence that may end with an amount: an Arabic amount ends with the currency's
 * own period ("1.500,50 د.ج." and a direction mark), which must not be doubled.
 */
const end = (text: string) =>
  text.replace(/[\u200e\u200f]+$/u, '').endsWith('.') ? text : `${text}.`;

/** The texts of a payment link's payer pages, in the three checkout languages. */
export const PaymentLinkMessages = {
  fr: {
    title: 'Paiement sécurisé',
    amount: 'Montant',
    fee: 'Frais',
    total: 'Total à payer',
    pay: 'Payer par carte CIB / Edahabia',
    chooseAmount: 'Montant à payer (DA)',
    between: (min: string, max: string) => end(`Entre ${min} et ${max}`),
    feeAdded: (fee: string) => `Des frais de ${fee} s’ajoutent au montant.`,
    continue: 'Continuer vers le paiement',
    amountRefused: (min: string, max: string) =>
      `Saisissez un montant entre ${min} et ${max}, avec au plus deux décimales.`,
    scanTitle: 'Payer depuis un autre téléphone',
    scanAlt: 'Code QR de cette page de paiement',
    notFound: 'Ce lien de paiement n’existe pas.',
    expired: 'Ce lien de paiement a expiré.',
    deactivated: 'Ce lien de paiement n’est plus actif.',
    used: 'Ce lien de paiement a déjà été payé.',
    beingPaid: 'Quelqu’un est en train de payer ce lien.',
    retryAt: (time: string) => `S’il n’aboutit pas, le lien sera de nouveau disponible à ${time}.`,
    askMerchant: 'Demandez un nouveau lien au marchand.',
    unavailable: 'Ce marchand ne peut pas recevoir de paiement pour le moment.',
    amountUnavailable: 'Ce marchand ne peut pas recevoir ce montant pour le moment.',
    notReady: 'Le paiement n’a pas pu être préparé à temps.',
    tryAgain: 'Réessayer',
    cardNote: 'Vos données de carte sont saisies sur la page de la banque, jamais chez dzpay.',
    language: 'Langue',
  },
  en: {
    title: 'Secure payment',
    amount: 'Amount',
    fee: 'Fee',
    total: 'Total to pay',
    pay: 'Pay by CIB / Edahabia card',
    chooseAmount: 'Amount to pay (DZD)',
    between: (min: string, max: string) => end(`Between ${min} and ${max}`),
    feeAdded: (fee: string) => `A fee of ${fee} is added to the amount.`,
    continue: 'Continue to payment',
    amountRefused: (min: string, max: string) =>
      `Enter an amount between ${min} and ${max}, with at most two decimals.`,
    scanTitle: 'Pay from another phone',
    scanAlt: 'QR code of this payment page',
    notFound: 'This payment link does not exist.',
    expired: 'This payment link has expired.',
    deactivated: 'This payment link is no longer active.',
    used: 'This payment link has already been paid.',
    beingPaid: 'Someone is paying this link right now.',
    retryAt: (time: string) =>
      `If their payment does not go through, the link is free again at ${time}.`,
    askMerchant: 'Ask the merchant for a new link.',
    unavailable: 'This merchant cannot take payments right now.',
    amountUnavailable: 'This merchant cannot take this amount right now.',
    notReady: 'The payment could not be prepared in time.',
    tryAgain: 'Try again',
    cardNote: 'Your card details are typed on the bank’s page, never at dzpay.',
    language: 'Language',
  },
  ar: {
    title: 'دفع آمن',
    amount: 'المبلغ',
    fee: 'الرسوم',
    total: 'المجموع المستحق',
    pay: 'الدفع ببطاقة CIB / الذهبية',
    chooseAmount: 'المبلغ المراد دفعه (د.ج)',
    between: (min: string, max: string) => end(`بين ${min} و${max}`),
    feeAdded: (fee: string) => end(`تُضاف إلى المبلغ رسوم قدرها ${fee}`),
    continue: 'المتابعة إلى الدفع',
    amountRefused: (min: string, max: string) =>
      `أدخل مبلغًا بين ${min} و${max}، بمنزلتين عشريتين على الأكثر.`,
    scanTitle: 'الدفع من هاتف آخر',
    scanAlt: 'رمز QR لصفحة الدفع هذه',
    notFound: 'رابط الدفع هذا غير موجود.',
    expired: 'انتهت صلاحية رابط الدفع هذا.',
    deactivated: 'رابط الدفع هذا لم يعد نشطًا.',
    used: 'تم دفع رابط الدفع هذا من قبل.',
    beingPaid: 'هناك من يدفع هذا الرابط الآن.',
    retryAt: (time: string) => `إن لم تكتمل عمليته، يصبح الرابط متاحًا من جديد على الساعة ${time}.`,
    askMerchant: 'اطلب رابطًا جديدًا من التاجر.',
    unavailable: 'لا يمكن لهذا التاجر استقبال المدفوعات حاليًا.',
    amountUnavailable: 'لا يمكن لهذا التاجر استقبال هذا المبلغ حاليًا.',
    notReady: 'تعذّر تحضير الدفع في الوقت المناسب.',
    tryAgain: 'إعادة المحاولة',
    cardNote: 'تُدخل بيانات بطاقتك في صفحة البنك، وليس لدى dzpay أبدًا.',
    language: 'اللغة',
  },
} as const satisfies Record<Language, Record<string, unknown>>;
