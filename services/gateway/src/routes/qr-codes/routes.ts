import {
  centimesToDzd,
  QR_CODES_PAGE_DEFAULT,
  QR_IMAGE_SIZE_DEFAULT,
  QrCodesListQuery,
  QrImageQuery,
  QrToken,
  Rpc,
  type QrCodeRecordView,
  type QrCodeView,
} from '@dzpay/contracts';
import { AppError, requestRpc } from '@dzpay/platform';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../../deps.ts';
import { etagMatches, negotiateQrFormat, payerUrlOf, renderQrImage } from '@dzpay/rendering';
import { authOf, requireApiKey } from '../shared/authenticate.ts';
import { scopedAsk } from '../shared/scoped-ask.ts';
import { parseQuery } from '../shared/query-string.ts';

/**
 * The merchant's static QR codes: the list with each code's configuration,
 * and each code's image. Configurations are still set and removed through the spec's
 * /set-qr-config and /un-set-qr-config.
 */
export function qrCodesRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const routeOptions = { preParsing: requireApiKey(app, deps.keys) };
  const ask = scopedAsk(deps, deps.serviceTimeoutMs);

  app.get('/api/v1/qr-codes', routeOptions, async (request) => {
    const query = parseQuery(QrCodesListQuery, request.query);
    const reply = await ask(request, Rpc.qrCodesList, {
      limit: query.limit ?? QR_CODES_PAGE_DEFAULT,
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
    return {
      statusCode: 200,
      message: 'QR codes',
      data: {
        qrCodes: reply.codes.map((code) => qrCodeView(code, deps.publicBaseUrl)),
        nextCursor: reply.nextCursor,
      },
    };
  });

  app.get<{ Params: { token: string } }>(
    '/api/v1/qr-codes/:token/image',
    routeOptions,
    async (request, reply) => {
      const { scope } = authOf(request);
      const query = parseQuery(QrImageQuery, request.query);
      const { token } = request.params;
      const notFound = () =>
        new AppError('QR_CODE404_NOT_FOUND', 'QR code not found', { details: { token } });
      // A token no code can have (a NUL, 300 characters) is not asked about.
      if (!QrToken.safeParse(token).success) throw notFound();
      // qr.config.get answers any token with its owner: another merchant's (or the
      // other mode's) is answered exactly like an unknown one.
      const owner = await requestRpc(
        deps.nats,
        deps.natsPrefix,
        Rpc.qrConfigGet,
        { token },
        {
          timeoutMs: deps.serviceTimeoutMs,
        },
      );
      if (owner.merchantId !== scope.merchantId || owner.mode !== scope.mode) throw notFound();
      const format = negotiateQrFormat(query.format, request.headers.accept);
      const image = await renderQrImage(payerUrlOf(deps.publicBaseUrl, token), {
        format,
        size: query.size ?? QR_IMAGE_SIZE_DEFAULT,
      });
      // The image of a token never changes (the code points at its payer page, whatever
      // the configuration): cached for ever, privately since it takes a key.
      void reply
        .header('cache-control', 'private, max-age=31536000, immutable')
        .header('etag', image.etag)
        .header('vary', 'accept, x-api-key');
      if (etagMatches(request.headers['if-none-match'], image.etag)) {
        return reply.code(304).send();
      }
      return reply.code(200).type(image.contentType).send(image.body);
    },
  );
}

/** What qr-config stores (centimes), as the API shows it (DZD, and the payer's URL). */
function qrCodeView(code: QrCodeRecordView, publicBaseUrl: string): QrCodeView {
  return {
    token: code.token,
    createdAt: code.createdAt,
    payerUrl: payerUrlOf(publicBaseUrl, code.token),
    state: code.state,
    config: code.config && {
      amounts: code.config.amounts.map(centimesToDzd),
      expiresAt: code.config.expiresAt,
      singleUse: code.config.singleUse,
      version: code.config.version,
      updatedAt: code.config.updatedAt,
    },
  };
}
