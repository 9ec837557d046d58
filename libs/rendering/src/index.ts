// What the merchant API (gateway) and the merchant dashboard both render, so the two show
// a merchant the same thing: QR images, the payments CSV and XLSX, statements.

export {
  etagMatches,
  negotiateQrFormat,
  payerUrlOf,
  renderQrImage,
  type QrImageFormat,
} from './qr-image.ts';
export { paymentsCsv } from './payments-csv.ts';
export { reportCsv } from './report-csv.ts';
export { csvWriter, type Cell } from './csv.ts';
export { xlsxWorkbook, XLSX_MEDIA_TYPE, type Sheet } from './xlsx.ts';

// Monthly statements of a merchant's balance: PDF, CSV and XLSX (docs/balance.md).
export { statementCsv } from './statement-csv.ts';
export { pdfAmount, statementPdf, type StatementParty } from './statement-pdf.ts';
export { statementXlsx } from './statement-xlsx.ts';
export { StatementTexts, type StatementText } from './statement-labels.ts';
export { statementFileName, STATEMENT_MEDIA_TYPES } from './statement-files.ts';

// XLSX of the payments list and of the daily report, next to their CSV.
export { ExportTooLarge, paymentsXlsx, XLSX_MAX_PAYMENTS } from './payments-xlsx.ts';
export { reportXlsx } from './report-xlsx.ts';
