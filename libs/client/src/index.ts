// @dzpay/client: a typed client of dzpay's merchant API.

// The client, one method per endpoint, and the options it is made with.
export { dzpayClient, type DzpayClient } from './client.ts';
export type { DzpayClientOptions, IdempotencyOptions } from './transport.ts';

// What every answer other than the expected success throws.
export { DzpayConnectionError, DzpayError } from './errors.ts';
