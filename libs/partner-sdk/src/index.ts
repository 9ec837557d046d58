// @dzpay/partner-sdk: everything a partner's server needs to talk with dzpay. Published
// for partners (see the README's API table), so it names what partners use, not only
// what dzpay's own code imports.

// Webhooks: the events dzpay sends, their signatures, and checking one as it arrives.
export { WebhookEvent, WebhookEventTypes, WebhookTestEvent } from './event.ts';
export { signWebhook, standardWebhookSignature } from './signature.ts';
export type { RawBody } from './signature.ts';
export { verifyWebhook } from './verify.ts';
export type {
  SigningSecrets,
  VerifyWebhookOptions,
  VerifyWebhookResult,
  WebhookFailure,
} from './verify.ts';
export type { IncomingHeaders } from './headers.ts';
export type { WebhookReceiverOptions } from './receiver.ts';
// Payment links: the link a webhook's payment was made through, from its reference.
export { paymentLinkOf } from './payment-link.ts';

// Product lookups: checking dzpay's request, and the answers a partner gives.
export { PartnerProduct, partnerError, productResponse, verifyDzpayRequest } from './product.ts';
export type {
  DzpayRequestFailure,
  PartnerErrorBody,
  PartnerErrorCode,
  PartnerResponse,
  VerifyDzpayRequestResult,
} from './product.ts';

// Ready-made endpoints: Fastify plugins, and a plain node:http handler.
export { dzpayProductLookup, dzpayWebhooks } from './fastify.ts';
export type { DzpayProductLookupOptions, DzpayWebhooksOptions } from './fastify.ts';
export { createWebhookHandler } from './node.ts';
export type { WebhookHandlerOptions } from './node.ts';
