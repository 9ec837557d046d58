import {
  cleanText,
  dzdToCentimes,
  isUuid,
  Language,
  Mode,
  Rpc,
  type AttemptSource,
  type MerchantTerms,
} from '@dzpay/contracts';
import { AppError, isAppError, requestRpc, type NatsConnection } from '@dzpay/platform';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AccountsRepository } from '@dzpay/accounts';
import { merchantTerms } from '../../domain/merchant-terms.ts';
import {
  agencyProblemPage,
  productPage,
  qrAmountsPage,
  referenceFormPage,
} from '../../pages/agency-pages.ts';
import { sendPage } from '../shared/page-reply.ts';

export interface AgencyRoutesDeps {
  accounts: AccountsRepository;
  nats: NatsConnection;
  natsPrefix: string;
  paymentsTimeoutMs: number;
}

type PageQuery = { Querystring: { lang?: string; mode?: string; reference?: string } };

/**
 * The AGENCY channel's payer pages: a partner's product reference
 * (/pay/{merchant}/{reference}, and a form to type one) and a static QR code
 * (/qr/{token}). Both end on the hosted checkout's /checkout/{token}.
 */
export async function agencyRoutes(app: FastifyInstance, deps: AgencyRoutesDeps): Promise<void> {
  await app.register((pages, _options, done) => {
    pages.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, body, parsed) => parsed(null, new URLSearchParams(body as string)),
    );
    const options = { config: { envelope: 'html' as const } };
    const ask = { timeoutMs: deps.paymentsTimeoutMs };

    /**
     * The merchant behind a page, in a mode that has a partner server. Only the scope
     * goes on to payments: it reads the server and its sealed secret from the partner
     * directory, so the gateway opens no partner secret and none crosses NATS.
     */
    async function partnerOf(merchantId: string, modeQuery: string | undefined) {
      const mode = Mode.safeParse(modeQuery ?? 'live');
      const merchant =
        isUuid(merchantId) && mode.success ? await deps.accounts.findMerchant(merchantId) : null;
      const endpoint = merchant?.active
        ? await deps.accounts.findPartnerEndpoint(merchant.id, mode.data!)
        : null;
      if (!merchant || !endpoint) {
        throw new AppError('CHECKOUT404_NOT_FOUND', 'no payment page here');
      }
      return {
        merchant,
        scope: { merchantId: merchant.id, mode: mode.data! },
        terms: merchantTerms(merchant, mode.data!),
      };
    }

    async function start(
      reply: FastifyReply,
      terms: MerchantTerms,
      reference: string,
      language: Language,
      source: AttemptSource,
    ) {
      const { checkoutToken } = await requestRpc(
        deps.nats,
        deps.natsPrefix,
        Rpc.attemptStart,
        { merchant: terms, reference, language, source },
        ask,
      );
      return reply.redirect(`/checkout/${checkoutToken}?lang=${language}`, 303);
    }

    pages.get<{ Params: { merchantId: string } } & PageQuery>(
      '/pay/:merchantId',
      options,
      async (request, reply) => {
        const { lang, mode, reference } = request.query;
        const language = languageOrDefault(lang);
        const { merchant } = await partnerOf(request.params.merchantId, mode);
        const base = `/pay/${merchant.id}`;
        if (reference) {
          return reply.redirect(
            `${base}/${encodeURIComponent(reference)}?${new URLSearchParams({ lang: language, mode: mode ?? 'live' }).toString()}`,
            303,
          );
        }
        return sendPage(
          reply,
          referenceFormPage(
            merchant.name,
            // A GET form replaces the action's query with its fields: mode is one of them.
            base,
            mode ?? 'live',
            language,
          ),
        );
      },
    );

    pages.get<{ Params: { merchantId: string; reference: string } } & PageQuery>(
      '/pay/:merchantId/:reference',
      options,
      async (request, reply) => {
        const language = languageOrDefault(request.query.lang);
        try {
          const { merchant, scope } = await partnerOf(
            request.params.merchantId,
            request.query.mode,
          );
          const product = await requestRpc(
            deps.nats,
            deps.natsPrefix,
            Rpc.productLookup,
            { merchant: scope, reference: productReference(request.params.reference) },
            ask,
          );
          const view = {
            merchantName: merchant.name,
            product,
            amount: dzdToCentimes(product.amount),
            fee: merchant.feeDzd * 100,
          };
          return sendPage(reply, productPage(view, request.url, language));
        } catch (error) {
          return problem(reply, error, language);
        }
      },
    );

    pages.post<{ Params: { merchantId: string; reference: string } } & PageQuery>(
      '/pay/:merchantId/:reference',
      options,
      async (request, reply) => {
        const language = languageOrDefault(request.query.lang);
        try {
          const { terms } = await partnerOf(request.params.merchantId, request.query.mode);
          const reference = productReference(request.params.reference);
          return await start(reply, terms, reference, language, { kind: 'product' });
        } catch (error) {
          return problem(reply, error, language);
        }
      },
    );

    /** The QR code's merchant, mode and configuration, if something is to be paid. */
    async function qrOf(token: string) {
      // A token no QR code can have (a NUL, broken Unicode) is unknown, not an outage.
      if (token.length === 0 || token.length > 255 || !cleanText(token)) return null;
      const reply = await requestRpc(deps.nats, deps.natsPrefix, Rpc.qrConfigGet, { token }, ask);
      const merchant = await deps.accounts.findMerchant(reply.merchantId);
      if (!merchant?.active || reply.state !== 'configured' || !reply.config) return null;
      return { merchant, terms: merchantTerms(merchant, reply.mode), config: reply.config };
    }

    pages.get<{ Params: { token: string } } & PageQuery>(
      '/qr/:token',
      options,
      async (request, reply) => {
        const language = languageOrDefault(request.query.lang);
        try {
          const qr = await qrOf(request.params.token);
          if (!qr) return sendPage(reply, agencyProblemPage('nothingToPay', language));
          const view = {
            merchantName: qr.merchant.name,
            amounts: qr.config.amounts,
            fee: qr.merchant.feeDzd * 100,
          };
          return sendPage(reply, qrAmountsPage(view, request.url, language));
        } catch (error) {
          return problem(reply, error, language);
        }
      },
    );

    pages.post<{ Params: { token: string }; Body: URLSearchParams | null } & PageQuery>(
      '/qr/:token',
      options,
      async (request, reply) => {
        const language = languageOrDefault(request.query.lang);
        try {
          const qr = await qrOf(request.params.token);
          if (!qr) return sendPage(reply, agencyProblemPage('nothingToPay', language));
          // The payer picks one of the configured amounts, never an amount of their own.
          // The page posts a form; any other body (JSON, say) carries no choice.
          const form = request.body instanceof URLSearchParams ? request.body : null;
          const choice = Number(form?.get('choice') ?? (qr.config.amounts.length === 1 ? 0 : -1));
          const amount = qr.config.amounts[choice];
          if (amount === undefined) return reply.redirect(request.url, 303);
          return await start(reply, qr.terms, request.params.token, language, {
            kind: 'qr',
            amount,
            singleUse: qr.config.singleUse,
            configVersion: qr.config.version,
          });
        } catch (error) {
          return problem(reply, error, language);
        }
      },
    );
    done();
  });
}

/**
 * A reference no product can have (longer than the contract's 255 characters, a NUL,
 * broken Unicode) is a product the partner does not know: never asked, never a 5xx.
 */
function productReference(raw: string): string {
  if (raw.length === 0 || raw.length > 255 || !cleanText(raw)) {
    throw new AppError(
      'PARTNER404_PRODUCT_NOT_FOUND',
      'the partner knows no product with this reference',
    );
  }
  return raw;
}

function languageOrDefault(requested: string | undefined): Language {
  const parsed = Language.safeParse(requested);
  return parsed.success ? parsed.data : 'fr';
}

/** What went wrong, as a page the payer understands; anything unexpected goes to the error handler. */
function problem(reply: FastifyReply, error: unknown, language: Language): FastifyReply {
  if (!isAppError(error)) throw error;
  switch (error.code) {
    case 'PARTNER404_PRODUCT_NOT_FOUND':
      return sendPage(reply, agencyProblemPage('productNotFound', language), 404);
    case 'PARTNER409_ALREADY_PAID':
      return sendPage(reply, agencyProblemPage('alreadyPaid', language), 409);
    case 'PARTNER503_UNAVAILABLE':
      return sendPage(reply, agencyProblemPage('partnerUnavailable', language), 503);
    case 'REFERENCE409_LOCKED':
      return sendPage(
        reply,
        agencyProblemPage('beingPaid', language, error.details?.retryAt as string | null),
        409,
      );
    default:
      throw error;
  }
}
