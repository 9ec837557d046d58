import type { FastifyPluginCallback } from 'fastify';
import {
  verifyDzpayRequest,
  errorResponse,
  partnerError,
  type PartnerResponse,
} from './product.ts';
import { receiveWebhook, type WebhookReceiverOptions } from './receiver.ts';
import { signingSecretsOf } from './verify.ts';

export type DzpayWebhooksOptions = WebhookReceiverOptions & {
  /** Where dzpay posts, under the plugin's prefix. */
  path?: string;
};

/**
 * `POST {path}`: verifies the signature over the raw body, then calls `onEvent` and
 * answers `{"success": true}`. Register it without fastify-plugin: the body parser it
 * installs (every content type as a Buffer, so the bytes dzpay signed are the bytes
 * checked) must stay inside this plugin and not replace JSON parsing for your other routes.
 */
export const dzpayWebhooks: FastifyPluginCallback<DzpayWebhooksOptions> = (app, options, done) => {
  signingSecretsOf(options);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, parsed) => {
    parsed(null, body);
  });
  app.post(options.path ?? '/webhooks/platform', async (request, reply) => {
    const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const answer = await receiveWebhook(
      {
        ...options,
        onError:
          options.onError ??
          ((error, event) =>
            request.log.error({ err: error, eventId: event.id }, 'onEvent failed')),
      },
      rawBody,
      request.headers,
    );
    return reply.code(answer.status).send(answer.body);
  });
  done();
};

export interface DzpayProductLookupOptions {
  /** The API secret dzpay sends as `Authorization: Bearer`. */
  apiSecret: string;
  /**
   * Answers for one reference (already URL-decoded): `productResponse(...)` or
   * `partnerError(...)`. A throw answers 503 `SERVICE_UNAVAILABLE`.
   */
  lookup: (reference: string) => PartnerResponse | Promise<PartnerResponse>;
  toleranceSeconds?: number;
}

/**
 * `GET /:reference` under the plugin's prefix: register it with the path of your API_URL
 * as prefix. References are up to 255 characters and Fastify refuses path parameters over
 * 100 by default (414): create Fastify with `routerOptions: { maxParamLength: 255 }`.
 */
export const dzpayProductLookup: FastifyPluginCallback<DzpayProductLookupOptions> = (
  app,
  options,
  done,
) => {
  if (typeof options.apiSecret !== 'string' || options.apiSecret === '') {
    throw new TypeError('dzpay partner SDK: apiSecret must be a non-empty string');
  }
  app.get<{ Params: { reference: string } }>('/:reference', async (request, reply) => {
    const verified = verifyDzpayRequest(request.headers, options.apiSecret, options);
    let answer: PartnerResponse;
    if (!verified.ok) {
      answer = errorResponse(401, 'UNAUTHORIZED', verified.message);
    } else {
      try {
        answer = await options.lookup(request.params.reference);
      } catch (error) {
        request.log.error({ err: error }, 'product lookup failed');
        answer = partnerError('SERVICE_UNAVAILABLE', 'the product cannot be looked up right now');
      }
    }
    return reply.code(answer.status).send(answer.body);
  });
  done();
};
