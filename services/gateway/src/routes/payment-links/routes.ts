import { randomBytes } from 'node:crypto';
import {
  CreatePaymentLinkBody,
  isJsonObject,
  jsonDepth,
  Language,
  MAX_METADATA_DEPTH,
  PAYMENT_LINKS_PAGE_DEFAULT,
  PaymentLinkAttempt,
  PaymentLinksListQuery,
  PaymentLinkToken,
  QR_IMAGE_SIZE_DEFAULT,
  QrImageQuery,
  Rpc,
  type MerchantTerms,
  type PaymentLinkPublicView,
} from '@dzpay/contracts';
import { isAppError, requestRpc } from '@dzpay/platform';
import { etagMatches, negotiateQrFormat, renderQrImage } from '@dzpay/rendering';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayDeps } from '../../deps.ts';
import { merchantTerms } from '../../domain/merchant-terms.ts';
import { typedCentimes } from '../../pages/payment-link-amount.ts';
import { paymentLinkPage, paymentLinkProblemPage } from '../../pages/payment-link-page.ts';
import { authOf, requireApiKey } from '../shared/authenticate.ts';
import { sendPage } from '../shared/page-reply.ts';
import { ValidationFailure } from '../shared/errors.ts';
import { answerOf, idempotencyOf } from '../shared/answered-again.ts';
import { parseQuery } from '../shared/query-string.ts';
import { scopedAsk } from '../shared/scoped-ask.ts';

/** The QR image a payer scans from the link's page (or a merchant prints): SVG, or PNG this wide. */
const PAYER_QR_PNG_SIZE = 512;

/**
 * Presses of pay one address may make on one link a minute: a payer's retries fit, and
 * whoever scripts presses to keep a single-use link busy runs out (each press opens a
 * payment that holds the link for its window).
 */
const PAYS_PER_LINK_PER_MINUTE = 10;

/** A render's nonce: the payer page's form carries it, payments keys the payment on it. */
const newAttempt = () => randomBytes(16).toString('base64url');

/** The merchant API's payment links (/api/v1/payment-links) and their hosted pages. */
export function paymentLinkRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  merchantRoutes(app, deps);
  void app.register((pages, _options, done) => {
    payerRoutes(pages, deps);
    done();
  });
}

/** POST /api/v1/payment-links, its list, one link, its deactivation and its QR image. */
function merchantRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const routeOptions = { preParsing: requireApiKey(app, deps.keys) };
  const ask = scopedAsk(deps, deps.serviceTimeoutMs);

  app.post('/api/v1/payment-links', routeOptions, async (request, reply) => {
    const auth = authOf(request);
    const link = parseCreateBody(request.body);
    const idempotency = idempotencyOf(request);
    const answer = await requestRpc(
      deps.nats,
      deps.natsPrefix,
      Rpc.paymentLinksCreate,
      {
        merchant: merchantTerms(auth.merchant, auth.scope.mode),
        link,
        ...(idempotency ? { idempotency } : {}),
      },
      { timeoutMs: deps.serviceTimeoutMs },
    );
    const data = answerOf(request, reply, answer);
    return reply.code(201).send({ statusCode: 201, message: 'Payment link created', data });
  });

  app.get('/api/v1/payment-links', routeOptions, async (request) => {
    const query = parseQuery(PaymentLinksListQuery, request.query);
    const data = await ask(request, Rpc.paymentLinksList, {
      limit: query.limit ?? PAYMENT_LINKS_PAGE_DEFAULT,
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
    return { statusCode: 200, message: 'Payment links', data };
  });

  app.get<{ Params: { id: string } }>(
    '/api/v1/payment-links/:id',
    routeOptions,
    async (request) => {
      const data = await ask(request, Rpc.paymentLinksGet, { id: request.params.id });
      return { statusCode: 200, message: 'Payment link found', data };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/api/v1/payment-links/:id/deactivate',
    routeOptions,
    async (request, reply) => {
      const answer = await ask(request, Rpc.paymentLinksDeactivate, { id: request.params.id });
      return {
        statusCode: 200,
        message: 'Payment link deactivated',
        data: answerOf(request, reply, answer),
      };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/v1/payment-links/:id/image',
    routeOptions,
    async (request, reply) => {
      const query = parseQuery(QrImageQuery, request.query);
      const link = await ask(request, Rpc.paymentLinksGet, { id: request.params.id });
      const format = negotiateQrFormat(query.format, request.headers.accept);
      const image = await renderQrImage(link.url, {
        format,
        size: query.size ?? QR_IMAGE_SIZE_DEFAULT,
      });
      // A link's URL never changes: its image is cached for ever, privately (it takes a key).
      void reply
        .header('cache-control', 'private, max-age=31536000, immutable')
        .header('etag', image.etag)
        .header('vary', 'accept, x-api-key');
      if (etagMatches(request.headers['if-none-match'], image.etag)) return reply.code(304).send();
      return reply.code(200).type(image.contentType).send(image.body);
    },
  );
}

/** The body of POST /api/v1/payment-links, or 400 VALIDATION400_BAD_REQUEST naming each fault. */
function parseCreateBody(body: unknown): CreatePaymentLinkBody {
  if (!isJsonObject(body)) {
    throw ValidationFailure.of([{ field: 'body', message: 'request body must be a JSON object' }]);
  }
  // Measured before the schema walks it: a hostile nesting must not exhaust the stack.
  if (body.metadata !== undefined && jsonDepth(body.metadata) > MAX_METADATA_DEPTH) {
    throw ValidationFailure.of([
      {
        field: 'metadata',
        message: `metadata must not nest deeper than ${MAX_METADATA_DEPTH} levels`,
      },
    ]);
  }
  const parsed = CreatePaymentLinkBody.safeParse(body);
  if (parsed.success) return parsed.data;
  throw ValidationFailure.of(
    parsed.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => ({ field: key, message: `${key} is not a known field` }))
        : [{ field: issue.path.map(String).join('.') || 'body', message: issue.message }],
    ),
  );
}

type PageRequest = {
  Params: { token: string };
  Querystring: { lang?: string; format?: string };
  Body: URLSearchParams | null;
};

/**
 * The payer's pages of a link, answered as pages (never JSON): `/link/{token}`, the form
 * it posts (which makes the payment and sends the payer on to its checkout), and its QR
 * image. Same frame, languages and headers as the checkout (sendPage).
 */
function payerRoutes(pages: FastifyInstance, deps: GatewayDeps): void {
  pages.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, parsed) => parsed(null, new URLSearchParams(body as string)),
  );
  const options = { config: { envelope: 'html' as const } };
  // Paying registers an order with the card network: it waits as long as payments may.
  const ask = { timeoutMs: deps.paymentsTimeoutMs };

  /** The link behind a token and its merchant now, or null when there is nothing to pay here. */
  async function linkOf(token: string) {
    // A token no link can have is not asked about.
    if (!PaymentLinkToken.safeParse(token).success) return null;
    let link: PaymentLinkPublicView;
    try {
      link = await requestRpc(deps.nats, deps.natsPrefix, Rpc.paymentLinkView, { token }, ask);
    } catch (error) {
      if (isAppError(error) && error.code === 'PAYMENT_LINK404_NOT_FOUND') return null;
      throw error;
    }
    const merchant = await deps.accounts.findMerchant(link.merchantId);
    if (!merchant?.active) return null;
    return { link, merchant, terms: merchantTerms(merchant, link.mode) };
  }

  const languageOf = (requested: string | undefined, fallback: Language = 'fr') => {
    const parsed = Language.safeParse(requested);
    return parsed.success ? parsed.data : fallback;
  };

  pages.get<PageRequest>('/link/:token', options, async (request, reply) => {
    const found = await linkOf(request.params.token);
    const language = languageOf(request.query.lang, found?.link.language);
    if (!found) return sendPage(reply, paymentLinkProblemPage('notFound', language), 404);
    const path = pathOf(request.params.token);
    const { link, merchant } = found;
    if (link.state !== 'active') {
      return sendPage(
        reply,
        paymentLinkProblemPage(link.state, language, { path, merchantName: merchant.name }),
        link.state === 'used' ? 409 : 410,
      );
    }
    if (link.busyUntil) {
      const options = { path, merchantName: merchant.name, retryAt: link.busyUntil };
      return sendPage(reply, paymentLinkProblemPage('beingPaid', language, options), 409);
    }
    const view = {
      merchantName: merchant.name,
      fee: merchant.feeDzd * 100,
      path,
      attempt: newAttempt(),
    };
    return sendPage(reply, paymentLinkPage(link, view, language));
  });

  const payOptions = {
    config: {
      ...options.config,
      rateLimit: {
        max: PAYS_PER_LINK_PER_MINUTE,
        timeWindow: 60_000,
        // Per address and link: one payer's presses never use up another link's budget.
        keyGenerator: (request: FastifyRequest) =>
          `link:${request.ip}:${(request.params as { token?: string }).token ?? ''}`,
      },
    },
  };

  pages.post<PageRequest>('/link/:token', payOptions, async (request, reply) => {
    const found = await linkOf(request.params.token);
    const language = languageOf(request.query.lang, found?.link.language);
    if (!found) return sendPage(reply, paymentLinkProblemPage('notFound', language), 404);
    const path = pathOf(request.params.token);
    const { link, merchant, terms } = found;
    const form = request.body instanceof URLSearchParams ? request.body : null;
    const typed = form?.get('amount')?.trim() ?? '';
    const amount = link.amount === null ? typedCentimes(typed) : undefined;
    const sent = PaymentLinkAttempt.safeParse(form?.get('attempt'));
    // A page shown again (a refused amount) is a new render: its form gets a new nonce.
    const view = {
      merchantName: merchant.name,
      fee: merchant.feeDzd * 100,
      path,
      typed,
      attempt: newAttempt(),
    };
    if (link.amount === null && amount === null) {
      return sendPage(reply, paymentLinkPage(link, { ...view, refused: true }, language), 400);
    }
    try {
      const paid = await requestRpc(
        deps.nats,
        deps.natsPrefix,
        Rpc.paymentLinkPay,
        {
          token: request.params.token,
          merchant: terms,
          language,
          ...(amount ? { amount } : {}),
          ...(sent.success ? { attempt: sent.data } : {}),
        },
        ask,
      );
      // 303: the browser follows with a GET, to the payment's own checkout page.
      return reply.redirect(
        `${checkoutUrlOf(deps.publicBaseUrl, paid.checkoutToken)}?lang=${language}`,
        303,
      );
    } catch (error) {
      return refused(reply, error, language, {
        link,
        view,
        terms,
        ...(sent.success ? { retry: { attempt: sent.data, amount: typed } } : {}),
      });
    }
  });

  pages.get<PageRequest>('/link/:token/qr', options, async (request, reply) => {
    if (!PaymentLinkToken.safeParse(request.params.token).success) {
      return sendPage(reply, paymentLinkProblemPage('notFound', 'fr'), 404);
    }
    const format = request.query.format === 'png' ? 'png' : 'svg';
    // Only the link's own URL is drawn, whatever its state: nothing is asked of payments,
    // and the image says nothing a payer could not learn by opening the page.
    const url = new URL(pathOf(request.params.token), deps.publicBaseUrl).href;
    const image = await renderQrImage(url, { format, size: PAYER_QR_PNG_SIZE });
    return reply
      .header('cache-control', 'public, max-age=86400')
      .header('etag', image.etag)
      .header('x-content-type-options', 'nosniff')
      .header('x-frame-options', 'DENY')
      .header('content-security-policy', "default-src 'none'; frame-ancestors 'none'")
      .type(image.contentType)
      .send(image.body);
  });
}

const pathOf = (token: string) => `/link/${encodeURIComponent(token)}`;

const checkoutUrlOf = (publicBaseUrl: string, checkoutToken: string) =>
  new URL(`/checkout/${encodeURIComponent(checkoutToken)}`, publicBaseUrl).href;

/** A refusal of payments as the payer's page says it; anything else goes to the error page. */
function refused(
  reply: FastifyReply,
  error: unknown,
  language: Language,
  context: {
    link: PaymentLinkPublicView;
    view: Parameters<typeof paymentLinkPage>[1];
    terms: MerchantTerms;
    /** The form as sent, to send again when payments could not answer in time. */
    retry?: { attempt: string; amount: string };
  },
): FastifyReply {
  if (!isAppError(error)) throw error;
  const { path, merchantName } = context.view;
  const problem = (kind: Parameters<typeof paymentLinkProblemPage>[0], status: number) =>
    sendPage(
      reply,
      paymentLinkProblemPage(kind, language, {
        path,
        merchantName,
        retryAt: (error.details?.retryAt as string | undefined) ?? null,
      }),
      status,
    );
  switch (error.code) {
    case 'PAYMENT_INSTANCE400_AMOUNT_OUT_OF_RANGE':
      // A fixed amount the merchant's range no longer takes: nothing the payer can change.
      if (context.link.amount !== null) return problem('amountUnavailable', 400);
      return sendPage(
        reply,
        paymentLinkPage(context.link, { ...context.view, refused: true }, language),
        400,
      );
    case 'PAYMENT_LINK404_NOT_FOUND':
      return problem('notFound', 404);
    case 'PAYMENT_LINK410_EXPIRED':
      return problem('expired', 410);
    case 'PAYMENT_LINK410_DEACTIVATED':
      return problem('deactivated', 410);
    case 'PAYMENT_LINK409_ALREADY_PAID':
      return problem('used', 409);
    case 'PAYMENT_LINK409_BEING_PAID':
      return problem('beingPaid', 409);
    case 'SERVICE503_UNAVAILABLE':
      // No answer in time (payments may still open the payment): the same form again,
      // whose nonce resumes that payment rather than being told someone pays the link.
      if (!context.retry) throw error;
      return sendPage(
        reply,
        paymentLinkProblemPage('notReady', language, {
          path,
          merchantName,
          retry: {
            attempt: context.retry.attempt,
            ...(context.retry.amount ? { amount: context.retry.amount } : {}),
          },
        }),
        503,
      );
    case 'SETTLEMENT422_MERCHANT_WALLET_MISSING':
    case 'VALIDATION422_UNPROCESSABLE_ENTITY':
      return problem('unavailable', 503);
    default:
      throw error;
  }
}
