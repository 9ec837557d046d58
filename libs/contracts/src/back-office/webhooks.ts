/**
 * The back office's webhooks messages (issue 14): HTTP bodies and answers, and the NATS
 * request/reply operations behind them.
 */
export const BackOfficeWebhooksRpc = {} as const;
