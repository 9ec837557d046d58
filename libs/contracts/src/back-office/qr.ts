/**
 * The back office's qr messages (issue 14): HTTP bodies and answers, and the NATS
 * request/reply operations behind them.
 */
export const BackOfficeQrRpc = {} as const;
