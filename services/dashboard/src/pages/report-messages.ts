import type { Language } from '@dzpay/contracts';

/** The texts of the daily report page, in the dashboard's three languages. */

const en = {
  reportTitle: 'Daily report',
  from: 'From',
  to: 'To (included)',
  show: 'Show',
  daysInAlgiers: 'Days are calendar days in Algiers.',
  date: 'Day',
  successCount: 'Payments',
  successAmount: 'Collected',
  refundCount: 'Refunds',
  refundAmount: 'Refunded',
  feeAmount: 'Fees',
  net: 'Net',
  totals: 'Total',
  chartTitle: 'Amount collected per day',
  chartSummary: (from: string, to: string, best: string | null) =>
    best
      ? `From ${from} to ${to}; the best day is ${best}.`
      : `From ${from} to ${to}; nothing was collected.`,
  bestDay: (day: string, amount: string) => `${day} (${amount})`,
  quietDays: 'Days without any payment or refund are left out of the table.',
  noActivity: 'No payment and no refund in these days.',
  downloadReport: 'Download for Excel (CSV)',
  downloadReportStandard: 'Standard CSV (for programs)',
  downloadReportXlsx: 'Excel workbook (XLSX)',
  invalidRange: 'Check the dates: from must be a day before to, at most 366 days apart.',
};

export type ReportText = typeof en;

const fr: ReportText = {
  reportTitle: 'Rapport quotidien',
  from: 'Du',
  to: 'Au (inclus)',
  show: 'Afficher',
  daysInAlgiers: 'Les jours sont des jours calendaires à Alger.',
  date: 'Jour',
  successCount: 'Paiements',
  successAmount: 'Encaissé',
  refundCount: 'Remboursements',
  refundAmount: 'Remboursé',
  feeAmount: 'Frais',
  net: 'Net',
  totals: 'Total',
  chartTitle: 'Montant encaissé par jour',
  chartSummary: (from, to, best) =>
    best
      ? `Du ${from} au ${to} ; le meilleur jour est le ${best}.`
      : `Du ${from} au ${to} ; rien n’a été encaissé.`,
  bestDay: (day, amount) => `${day} (${amount})`,
  quietDays: 'Les jours sans paiement ni remboursement ne figurent pas dans le tableau.',
  noActivity: 'Aucun paiement ni remboursement sur ces jours.',
  downloadReport: 'Télécharger pour Excel (CSV)',
  downloadReportStandard: 'CSV standard (pour les programmes)',
  downloadReportXlsx: 'Classeur Excel (XLSX)',
  invalidRange:
    'Vérifiez les dates : le début doit précéder la fin, avec au plus 366 jours d’écart.',
};

const ar: ReportText = {
  reportTitle: 'التقرير اليومي',
  from: 'من',
  to: 'إلى (ضمنا)',
  show: 'عرض',
  daysInAlgiers: 'الأيام أيام تقويمية بتوقيت الجزائر العاصمة.',
  date: 'اليوم',
  successCount: 'المدفوعات',
  successAmount: 'المحصل',
  refundCount: 'الاستردادات',
  refundAmount: 'المسترد',
  feeAmount: 'الرسوم',
  net: 'الصافي',
  totals: 'المجموع',
  chartTitle: 'المبلغ المحصل في كل يوم',
  chartSummary: (from, to, best) =>
    best ? `من ${from} إلى ${to}؛ أفضل يوم هو ${best}.` : `من ${from} إلى ${to}؛ لم يحصل أي مبلغ.`,
  bestDay: (day, amount) => `${day} (${amount})`,
  quietDays: 'لا تظهر في الجدول الأيام التي لم تشهد أي دفعة أو استرداد.',
  noActivity: 'لا توجد أي دفعة أو استرداد في هذه الأيام.',
  downloadReport: 'تنزيل لبرنامج Excel ‏(CSV)',
  downloadReportStandard: 'CSV قياسي (للبرامج)',
  downloadReportXlsx: 'مصنف Excel ‏(XLSX)',
  invalidRange:
    'تحقق من التواريخ: يجب أن يسبق تاريخ البداية تاريخ النهاية، بفارق 366 يوما على الأكثر.',
};

export const ReportMessages: Record<Language, ReportText> = { ar, fr, en };
