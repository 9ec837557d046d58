import type { Language } from '@dzpay/contracts';

/** Every text of the payer's pages, in the three checkout languages. */
export const Messages = {
  fr: {
    title: 'Paiement sécurisé',
    merchant: 'Marchand',
    reference: 'Référence',
    amount: 'Montant',
    fee: 'Frais',
    total: 'Total à payer',
    pay: 'Payer par carte CIB / Edahabia',
    expiresIn: 'Ce lien expire dans',
    expiresAt: 'Ce lien expire à',
    success: 'Paiement réussi',
    failed: 'Le paiement n’a pas abouti',
    expired: 'Ce lien de paiement a expiré',
    refunded: 'Ce paiement a été remboursé',
    processing: 'Nous confirmons votre paiement…',
    processingHint: 'Cette page se met à jour toute seule.',
    continue: 'Retour au marchand',
    notFound: 'Lien de paiement introuvable',
    error: 'Le service est momentanément indisponible. Réessayez dans un instant.',
    cardNote: 'Vos données de carte sont saisies sur la page de la banque, jamais chez dzpay.',
    language: 'Langue',
  },
  en: {
    title: 'Secure payment',
    merchant: 'Merchant',
    reference: 'Reference',
    amount: 'Amount',
    fee: 'Fee',
    total: 'Total to pay',
    pay: 'Pay by CIB / Edahabia card',
    expiresIn: 'This link expires in',
    expiresAt: 'This link expires at',
    success: 'Payment successful',
    failed: 'The payment did not go through',
    expired: 'This payment link has expired',
    refunded: 'This payment was refunded',
    processing: 'We are confirming your payment…',
    processingHint: 'This page updates by itself.',
    continue: 'Back to the merchant',
    notFound: 'Payment link not found',
    error: 'The service is briefly unavailable. Please try again in a moment.',
    cardNote: 'You enter your card details on the bank’s page, never on dzpay.',
    language: 'Language',
  },
  ar: {
    title: 'دفع آمن',
    merchant: 'التاجر',
    reference: 'المرجع',
    amount: 'المبلغ',
    fee: 'الرسوم',
    total: 'المبلغ الإجمالي',
    pay: 'ادفع ببطاقة CIB / الذهبية',
    expiresIn: 'تنتهي صلاحية هذا الرابط خلال',
    expiresAt: 'تنتهي صلاحية هذا الرابط في',
    success: 'تم الدفع بنجاح',
    failed: 'لم تتم عملية الدفع',
    expired: 'انتهت صلاحية رابط الدفع هذا',
    refunded: 'تم استرداد هذا المبلغ',
    processing: 'نقوم بتأكيد عملية الدفع…',
    processingHint: 'يتم تحديث هذه الصفحة تلقائيًا.',
    continue: 'العودة إلى التاجر',
    notFound: 'رابط الدفع غير موجود',
    error: 'الخدمة غير متاحة مؤقتًا. يرجى المحاولة بعد قليل.',
    cardNote: 'تُدخل بيانات بطاقتك في صفحة البنك، وليس لدى dzpay أبدًا.',
    language: 'اللغة',
  },
} as const satisfies Record<Language, Record<string, string>>;

export const LANGUAGE_NAMES: Record<Language, string> = {
  ar: 'العربية',
  fr: 'Français',
  en: 'English',
};

const LOCALES: Record<Language, string> = { ar: 'ar-DZ', fr: 'fr-DZ', en: 'en-GB' };

/** Centimes as the payer reads DZD in their language. */
export function formatDzd(centimes: number, language: Language): string {
  return new Intl.NumberFormat(LOCALES[language], { style: 'currency', currency: 'DZD' }).format(
    centimes / 100,
  );
}

/** A time of day in Algiers, in the payer's language. */
export function formatTime(iso: string, language: Language): string {
  return new Intl.DateTimeFormat(LOCALES[language], {
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'Africa/Algiers',
  }).format(new Date(iso));
}
