// What the merchant API (gateway) and the merchant dashboard both render and read, so the
// two show a merchant the same thing: QR images, the payments CSV, the QR amount form.

export {
  etagMatches,
  negotiateQrFormat,
  payerUrlOf,
  renderQrImage,
  type QrImageFormat,
} from './qr-image.ts';
export { paymentsCsv } from './payments-csv.ts';
export { reportCsv } from './report-csv.ts';
export { parseSetQrConfig, parseUnsetQrConfig, type Parsed } from './qr-request.ts';
export { csvWriter, type Cell } from './csv.ts';
export { xlsxWorkbook, XLSX_MEDIA_TYPE, type Sheet } from './xlsx.ts';
export {
  pdfAmount,
  STATEMENT_MEDIA_TYPES,
  statementCsv,
  statementFileName,
  type StatementParty,
  statementPdf,
  type StatementText,
  StatementTexts,
  statementXlsx,
} from './statements.ts';
export { ExportTooLarge, paymentsXlsx, reportXlsx, XLSX_MAX_PAYMENTS } from './spreadsheets.ts';
