// XLSX of the payments list and of the daily report, next to their CSV (payments-csv.ts,
// report-csv.ts): what the merchant API's exports and the dashboard's downloads send.
export { ExportTooLarge, paymentsXlsx, XLSX_MAX_PAYMENTS } from './payments-xlsx.ts';
export { reportXlsx } from './report-xlsx.ts';
