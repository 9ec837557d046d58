// @dzpay/partner-sdk: everything a partner's server needs to talk with dzpay.
export { WebhookEvent, WebhookEventTypes, WebhookTestEvent } from './event.ts';
export { dzpayProductLookup, dzpayWebhooks } from './fastify.ts';
export type { DzpayProductLookupOptions, DzpayWebhooksOptions } from './fastify.ts';
export type { IncomingHeaders } from './headers.ts';
export { createWebhookHandler } from './node.ts';
export type { WebhookHandlerOptions } from './node.ts';
export { PartnerProduct, partnerError, productResponse, verifyDzpayRequest } from './product.ts';
export type {
  DzpayRequestFailure,
  PartnerErrorBody,
  PartnerErrorCode,
  PartnerResponse,
  VerifyDzpayRequestResult,
} from './product.ts';
export type { WebhookReceiverOptions } from './receiver.ts';
export { signWebhook, standardWebhookSignature } from './signature.ts';
export type { RawBody } from './signature.ts';
export { verifyWebhook } from './verify.ts';
export type {
  SigningSecrets,
  VerifyWebhookOptions,
  VerifyWebhookResult,
  WebhookFailure,
} from './verify.ts';
