import { formatDzd, LOCALES, type Language, type ReceiptPayment } from '@dzpay/contracts';
import { escapeHtml } from '@dzpay/platform';
import { RECEIPT_WORDS, type ReceiptWords } from './receipt-words.ts';

/** Algeria's clock, whatever the server's: receipts show the payer's local time. */
const TIME_ZONE = 'Africa/Algiers';

export interface RenderedReceipt {
  subject: string;
  html: string;
  text: string;
}

/**
 * A receipt email in one language: subject, an HTML part (inline styles only, no image,
 * font or link to fetch) and a plain-text part with the same facts. Pure: the payment
 * must have succeeded (paidAt set); amounts are centimes and `fees` whole DZD.
 */
export function renderReceipt(
  payment: ReceiptPayment,
  merchantName: string,
  language: Language,
): RenderedReceipt {
  const words = RECEIPT_WORDS[language];
  const rows = receiptRows(payment, merchantName, language);
  return {
    subject: words.subject(merchantName),
    html: receiptHtml(rows, merchantName, words, language),
    text: receiptText(rows, merchantName, words),
  };
}

/** A date and time in Algiers, in the receipt's language. */
function formatAlgiersTime(iso: string, language: Language): string {
  return new Intl.DateTimeFormat(LOCALES[language], {
    dateStyle: 'long',
    timeStyle: 'short',
    hourCycle: 'h23',
    timeZone: TIME_ZONE,
  }).format(new Date(iso));
}

interface Row {
  label: string;
  value: string;
  /** Identifiers and card digits read left to right, even in an Arabic receipt. */
  ltr?: boolean;
  strong?: boolean;
}

function receiptRows(payment: ReceiptPayment, merchantName: string, language: Language): Row[] {
  const words = RECEIPT_WORDS[language];
  const missing = words.notAvailable;
  return [
    { label: words.merchant, value: merchantName },
    { label: words.reference, value: payment.reference, ltr: true },
    { label: words.amount, value: formatDzd(payment.amount, language) },
    { label: words.fee, value: formatDzd(payment.fees * 100, language) },
    { label: words.total, value: formatDzd(payment.total, language), strong: true },
    {
      label: words.paidAt,
      value: payment.paidAt ? formatAlgiersTime(payment.paidAt, language) : missing,
    },
    { label: words.orderId, value: payment.orderId ?? missing, ltr: true },
    { label: words.approvalCode, value: payment.approvalCode ?? missing, ltr: true },
    { label: words.card, value: payment.maskedPan ?? missing, ltr: true },
    { label: words.paymentId, value: payment.id, ltr: true },
  ];
}

function receiptText(rows: Row[], merchantName: string, words: ReceiptWords): string {
  return [
    words.title,
    '',
    words.intro(merchantName),
    '',
    ...rows.map((row) => `${row.label}: ${row.value}`),
    '',
    words.keep,
    '',
  ].join('\n');
}

function receiptHtml(
  rows: Row[],
  merchantName: string,
  words: ReceiptWords,
  language: Language,
): string {
  const align = words.direction === 'rtl' ? 'right' : 'left';
  const cells = rows
    .map((row) => {
      const value = escapeHtml(row.value);
      const shown = row.ltr ? `<bdi dir="ltr">${value}</bdi>` : value;
      const weight = row.strong ? 'font-weight:700;' : '';
      return `<tr><th style="text-align:${align};padding:8px 12px;color:#555;font-weight:400;border-top:1px solid #eee">${escapeHtml(row.label)}</th><td style="text-align:${align};padding:8px 12px;border-top:1px solid #eee;${weight}">${shown}</td></tr>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="${language}" dir="${words.direction}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(words.title)}</title>
</head>
<body style="margin:0;padding:24px;background:#f4f5f7;font-family:Tahoma,Arial,sans-serif;color:#1d1d1f">
<div style="max-width:560px;margin:0 auto;background:#fff;border-radius:8px;padding:24px">
<h1 style="font-size:20px;margin:0 0 8px">${escapeHtml(words.title)}</h1>
<p style="margin:0 0 16px">${escapeHtml(words.intro(merchantName))}</p>
<table role="presentation" style="width:100%;border-collapse:collapse;font-size:14px">
${cells}
</table>
<p style="margin:16px 0 0;color:#555;font-size:13px">${escapeHtml(words.keep)}</p>
</div>
</body>
</html>
`;
}
