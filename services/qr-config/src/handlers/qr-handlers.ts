import { Rpc } from '@dzpay/contracts';
import {
  AppError,
  serveRpc,
  type Logger,
  type NatsConnection,
  type RpcServer,
} from '@dzpay/platform';
import type { QrRepository } from '../adapters/qr-repository.ts';
import { decodeQrCodesCursor, encodeQrCodesCursor } from '../domain/qr-codes-cursor.ts';
import { configurationState } from '../domain/qr-configuration.ts';
import { newQrToken } from '../domain/qr-token.ts';

function qrNotFound(token: string): AppError {
  return new AppError('QR_CODE404_NOT_FOUND', 'QR code not found', { details: { token } });
}

/**
 * The qr-config subjects. Another merchant's token (or the other mode's) is answered
 * exactly like an unknown one: its existence is never revealed.
 */
export async function serveQrHandlers(deps: {
  nats: NatsConnection;
  prefix: string;
  repository: QrRepository;
  logger: Logger;
  clock?: () => Date;
}): Promise<RpcServer[]> {
  const { nats, prefix, repository, logger } = deps;
  const clock = deps.clock ?? (() => new Date());

  return Promise.all([
    serveRpc(
      nats,
      prefix,
      Rpc.qrConfigSet,
      async ({ merchantId, mode, token, ...config }) => {
        const version = await repository.replaceConfig({ merchantId, mode }, token, config);
        if (version === null) throw qrNotFound(token);
        return { token, version };
      },
      logger,
    ),

    serveRpc(
      nats,
      prefix,
      Rpc.qrConfigUnset,
      async ({ merchantId, mode, token }) => {
        const removed = await repository.removeConfig({ merchantId, mode }, token);
        if (removed === null) throw qrNotFound(token);
        return { token, removed };
      },
      logger,
    ),

    serveRpc(
      nats,
      prefix,
      Rpc.qrConfigGet,
      async ({ token }) => {
        const found = await repository.findByToken(token);
        if (!found) throw qrNotFound(token);
        const { code, config } = found;
        return {
          token,
          merchantId: code.merchantId,
          mode: code.mode,
          state: configurationState(config, clock()),
          config,
        };
      },
      logger,
    ),

    serveRpc(
      nats,
      prefix,
      Rpc.qrCodeCreate,
      async ({ merchantId, mode, token }) => {
        const created = await repository.createCode({ merchantId, mode }, token ?? newQrToken());
        if (!created) {
          throw new AppError('QR_CODE409_ALREADY_EXISTS', 'a QR code with this token exists');
        }
        return { ...created, createdAt: created.createdAt.toISOString() };
      },
      logger,
    ),

    serveRpc(
      nats,
      prefix,
      Rpc.qrCodesList,
      async ({ merchantId, mode, limit, cursor }) => {
        const after = cursor === undefined ? null : decodeQrCodesCursor(cursor);
        if (cursor !== undefined && !after) {
          throw new AppError('VALIDATION400_BAD_REQUEST', 'request validation failed', {
            details: {
              failures: [{ field: 'cursor', message: 'cursor is not one this API gave out' }],
            },
          });
        }
        // One more than asked: whether a next page exists, without counting.
        const rows = await repository.listCodes({ merchantId, mode }, after, limit + 1);
        const shown = rows.slice(0, limit);
        const now = clock();
        return {
          codes: shown.map(({ code, config }) => ({
            token: code.token,
            createdAt: code.createdAt.toISOString(),
            state: configurationState(config, now),
            config,
          })),
          nextCursor: rows.length > limit ? encodeQrCodesCursor(shown.at(-1)!.cursor) : null,
        };
      },
      logger,
    ),
  ]);
}
