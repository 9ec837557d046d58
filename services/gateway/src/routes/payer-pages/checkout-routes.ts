import { cleanText, isUuid, Rpc } from '@dzpay/contracts';
import { AppError, requestRpc, type NatsConnection } from '@dzpay/platform';
import type { FastifyInstance } from 'fastify';
import { checkoutPage, resultPage } from '../../pages/checkout-page.ts';
import { languageOf, sendPage } from '../shared/page-reply.ts';

export interface CheckoutRoutesDeps {
  nats: NatsConnection;
  natsPrefix: string;
  serviceTimeoutMs: number;
  paymentsTimeoutMs: number;
}

type LangQuery = { Querystring: { lang?: string } };

/**
 * The payer's pages: the checkout link, the way to the card network's form, and the
 * route the card network sends the payer back to. Errors answer as pages, not JSON.
 */
export async function checkoutRoutes(
  app: FastifyInstance,
  deps: CheckoutRoutesDeps,
): Promise<void> {
  await app.register((pages, _options, done) => {
    // The pay button is a plain HTML form: its (empty) urlencoded body is not read.
    pages.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, _body, done) => done(null, null),
    );
    const options = { config: { envelope: 'html' as const } };
    // Opening an expired link may ask the card network: pages wait as long as payments may.
    const ask = { timeoutMs: deps.paymentsTimeoutMs };

    pages.get<{ Params: { token: string } } & LangQuery>(
      '/checkout/:token',
      options,
      async (request, reply) => {
        const token = possibleToken(request.params.token);
        const view = await requestRpc(deps.nats, deps.natsPrefix, Rpc.checkoutView, { token }, ask);
        const language = languageOf(request.query.lang, view);
        const open = view.status === 'created' || view.status === 'processing';
        return sendPage(
          reply,
          open
            ? checkoutPage(view, language, token)
            : resultPage(view, language, `/checkout/${token}`),
        );
      },
    );

    pages.post<{ Params: { token: string } }>(
      '/checkout/:token/pay',
      options,
      async (request, reply) => {
        const token = possibleToken(request.params.token);
        const { formUrl } = await requestRpc(
          deps.nats,
          deps.natsPrefix,
          Rpc.checkoutStart,
          { token },
          ask,
        );
        // 303: the browser follows with a GET, to the card form or back to our page.
        return reply.redirect(formUrl ?? `/checkout/${encodeURIComponent(token)}`, 303);
      },
    );

    pages.get<{ Params: { paymentId: string } } & LangQuery>(
      '/checkout/return/:paymentId',
      options,
      async (request, reply) => {
        // Whatever the card network put in the query is ignored: the outcome is asked
        // of the card network server to server.
        const { paymentId } = request.params;
        if (!isUuid(paymentId)) throw notFound();
        const view = await requestRpc(
          deps.nats,
          deps.natsPrefix,
          Rpc.checkoutReturn,
          { paymentId },
          {
            timeoutMs: deps.paymentsTimeoutMs,
          },
        );
        if (view.redirectUrl) return reply.redirect(view.redirectUrl, 303);
        return sendPage(
          reply,
          resultPage(view, languageOf(request.query.lang, view), `/checkout/return/${paymentId}`),
        );
      },
    );
    done();
  });
}

const notFound = () => new AppError('CHECKOUT404_NOT_FOUND', 'no payment page here');

/**
 * A checkout token as sent, when some payment could have it. An empty one (the
 * `/checkout/` link cut short), an overlong one, or one with a NUL or broken Unicode
 * leads nowhere: the payer's 404 page, without asking payments (which would refuse the
 * request as malformed, an internal error).
 */
export function possibleToken(token: string): string {
  if (token.length === 0 || token.length > 255 || !cleanText(token)) throw notFound();
  return token;
}
