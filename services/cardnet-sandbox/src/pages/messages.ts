import type { CardFormError } from '../domain/card.ts';
import type { Language } from '../domain/test-cards.ts';

interface Messages {
  title: string;
  merchantOrder: string;
  amount: string;
  description: string;
  pan: string;
  expiry: string;
  cvv: string;
  cardholderName: string;
  pay: string;
  sandboxNote: string;
  currency: string;
  errors: Record<CardFormError, string>;
}

export const MESSAGES: Record<Language, Messages> = {
  en: {
    title: 'Card payment',
    merchantOrder: 'Order',
    amount: 'Amount',
    description: 'Description',
    pan: 'Card number',
    expiry: 'Expiry date (MM/YY)',
    cvv: 'CVV2',
    cardholderName: 'Cardholder name',
    pay: 'Pay',
    sandboxNote: 'Sandbox: no real card is charged.',
    currency: 'DZD',
    errors: {
      pan: 'The card number is not valid.',
      expiry: 'The expiry date must be written MM/YY.',
      cvv: 'The CVV2 is the 3 digits on the back of the card.',
      name: 'Enter the name written on the card.',
    },
  },
  fr: {
    title: 'Paiement par carte',
    merchantOrder: 'Commande',
    amount: 'Montant',
    description: 'Description',
    pan: 'Numéro de carte',
    expiry: "Date d'expiration (MM/AA)",
    cvv: 'CVV2',
    cardholderName: 'Nom du titulaire',
    pay: 'Payer',
    sandboxNote: 'Bac à sable : aucune carte réelle n’est débitée.',
    currency: 'DZD',
    errors: {
      pan: "Le numéro de carte n'est pas valide.",
      expiry: "La date d'expiration s'écrit MM/AA.",
      cvv: 'Le CVV2 est composé des 3 chiffres au dos de la carte.',
      name: 'Saisissez le nom inscrit sur la carte.',
    },
  },
  ar: {
    title: 'الدفع بالبطاقة',
    merchantOrder: 'الطلب',
    amount: 'المبلغ',
    description: 'الوصف',
    pan: 'رقم البطاقة',
    expiry: 'تاريخ الانتهاء (شهر/سنة)',
    cvv: 'CVV2',
    cardholderName: 'اسم حامل البطاقة',
    pay: 'ادفع',
    sandboxNote: 'بيئة تجريبية: لا يتم خصم أي مبلغ من بطاقة حقيقية.',
    currency: 'د.ج',
    errors: {
      pan: 'رقم البطاقة غير صالح.',
      expiry: 'يجب كتابة تاريخ الانتهاء بالشكل شهر/سنة.',
      cvv: 'رمز CVV2 هو الأرقام الثلاثة على ظهر البطاقة.',
      name: 'أدخل الاسم المكتوب على البطاقة.',
    },
  },
};

const LOCALES: Record<Language, string> = { en: 'en-GB', fr: 'fr-FR', ar: 'ar-DZ' };

/** Centimes as dinars with two decimals, in the page's language (1 500,00 DZD). */
export function formatAmount(centimes: number, language: Language): string {
  const number = new Intl.NumberFormat(LOCALES[language], {
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  }).format(centimes / 100);
  return `${number} ${MESSAGES[language].currency}`;
}
