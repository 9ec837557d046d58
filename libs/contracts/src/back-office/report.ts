/**
 * The back office's daily report (issue 14): HTTP bodies and answers, and the NATS
 * request/reply operation behind them.
 */
export const BackOfficeReportRpc = {} as const;
