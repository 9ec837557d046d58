/**
 * The back office's payments messages (issue 14): HTTP bodies and answers, and the NATS
 * request/reply operations behind them.
 */
export const BackOfficePaymentsRpc = {} as const;
