// Monthly statements of a merchant's balance: PDF, CSV and XLSX (docs/balance.md).
export { statementCsv } from './statement-csv.ts';
export { statementPdf, pdfAmount, type StatementParty } from './statement-pdf.ts';
export { statementXlsx } from './statement-xlsx.ts';
export { StatementTexts, type StatementText } from './statement-labels.ts';
export { statementFileName, STATEMENT_MEDIA_TYPES } from './statement-files.ts';
