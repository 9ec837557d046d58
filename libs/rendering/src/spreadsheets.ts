// XLSX and CSV of the payments list and the daily report (filled by the exports work).
export {};
