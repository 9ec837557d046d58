import type { Language } from '@dzpay/contracts';

/** Every word a receipt shows, per language. */
export interface ReceiptWords {
  direction: 'ltr' | 'rtl';
  subject: (merchant: string) => string;
  title: string;
  intro: (merchant: string) => string;
  merchant: string;
  reference: string;
  amount: string;
  fee: string;
  total: string;
  paidAt: string;
  orderId: string;
  approvalCode: string;
  card: string;
  paymentId: string;
  keep: string;
  notAvailable: string;
}

export const RECEIPT_WORDS: Record<Language, ReceiptWords> = {
  en: {
    direction: 'ltr',
    subject: (merchant) => `Your payment receipt – ${merchant}`,
    title: 'Payment receipt',
    intro: (merchant) => `Your payment to ${merchant} was successful.`,
    merchant: 'Merchant',
    reference: 'Reference',
    amount: 'Amount',
    fee: 'Fee',
    total: 'Total paid',
    paidAt: 'Date and time',
    orderId: 'Card network order',
    approvalCode: 'Approval code',
    card: 'Card',
    paymentId: 'Payment ID',
    keep: 'Keep this receipt as proof of payment.',
    notAvailable: '–',
  },
  fr: {
    direction: 'ltr',
    subject: (merchant) => `Votre reçu de paiement – ${merchant}`,
    title: 'Reçu de paiement',
    intro: (merchant) => `Votre paiement à ${merchant} a été effectué avec succès.`,
    merchant: 'Commerçant',
    reference: 'Référence',
    amount: 'Montant',
    fee: 'Frais',
    total: 'Total payé',
    paidAt: 'Date et heure',
    orderId: 'Commande réseau carte',
    approvalCode: "Code d'autorisation",
    card: 'Carte',
    paymentId: 'Identifiant du paiement',
    keep: 'Conservez ce reçu comme preuve de paiement.',
    notAvailable: '–',
  },
  ar: {
    direction: 'rtl',
    subject: (merchant) => `إيصال الدفع – ${merchant}`,
    title: 'إيصال الدفع',
    intro: (merchant) => `تمت عملية الدفع لصالح ${merchant} بنجاح.`,
    merchant: 'التاجر',
    reference: 'المرجع',
    amount: 'المبلغ',
    fee: 'الرسوم',
    total: 'المجموع المدفوع',
    paidAt: 'التاريخ والوقت',
    orderId: 'رقم طلب شبكة البطاقات',
    approvalCode: 'رمز الموافقة',
    card: 'البطاقة',
    paymentId: 'معرّف الدفع',
    keep: 'احتفظ بهذا الإيصال كإثبات للدفع.',
    notAvailable: '–',
  },
};
