import { randomBytes, randomUUID } from 'node:crypto';
import {
  isUuid,
  Rpc,
  type MerchantScope,
  type PaymentLinkCreateRequest,
  type PaymentLinksListRequest,
  type PaymentLinksPage,
  PaymentLinkView,
  type PaymentLinkWriteReply,
} from '@dzpay/contracts';
import { AppError, serveRpc, type RpcServer } from '@dzpay/platform';
import { paymentLinksRepository } from './links-repository.ts';
import type { ServedContext } from '../context.ts';
import { createRefusalOf } from './link-rules.ts';
import { paymentLinkPublicView, paymentLinkView } from './link-view.ts';
import { decodeCursor, encodeCursor } from '../domain/payments-cursor.ts';
import { refusalError } from '../domain/charge.ts';
import { linkNotFound, linkPayer } from './link-payer.ts';
import { idempotent, markedReplay } from '../store/idempotency.ts';

/** A link's public token: `pl_` and 16 random bytes, unguessable and URL-safe. */
const newLinkToken = () => `pl_${randomBytes(16).toString('base64url')}`;

/** payments.links.*: payment links, and the payments their payers make. */
export async function servePaymentLinkHandlers(ctx: ServedContext): Promise<RpcServer[]> {
  const { nats, prefix, sql, logger, clock } = ctx;
  const links = paymentLinksRepository(sql, ctx.pressHoldMs);
  const pay = linkPayer(ctx, links);

  async function read(scope: MerchantScope, id: string): Promise<PaymentLinkView> {
    const found = isUuid(id) ? await links.findForMerchant(scope, id) : null;
    if (!found) throw linkNotFound();
    return paymentLinkView(found, ctx.publicBaseUrl, clock());
  }

  /** A link made once per Idempotency-Key: a replay answers the link the key made. */
  async function createOnce({
    idempotency,
    ...request
  }: PaymentLinkCreateRequest): Promise<PaymentLinkWriteReply> {
    const { merchantId, mode } = request.merchant;
    const answer = await idempotent(
      ctx.idempotency,
      { merchantId, mode },
      idempotency,
      PaymentLinkView,
      () => create(request),
    );
    return markedReplay(answer);
  }

  async function create({
    merchant,
    link,
  }: Omit<PaymentLinkCreateRequest, 'idempotency'>): Promise<PaymentLinkView> {
    const now = clock();
    // The schema ran on the way in: the body is its output (trimmed label, UTC expiry).
    const body = link;
    const refused = createRefusalOf(body, merchant, now);
    if (refused) throw refusalError(refused);
    const record = await links.insert({
      id: randomUUID(),
      merchantId: merchant.merchantId,
      mode: merchant.mode,
      token: newLinkToken(),
      label: body.label,
      amount: body.amount ?? null,
      minAmount: body.amount == null ? (body.minAmount ?? null) : null,
      maxAmount: body.amount == null ? (body.maxAmount ?? null) : null,
      singleUse: body.singleUse ?? false,
      expiresAt: body.expiresAt ? new Date(body.expiresAt) : null,
      language: body.language ?? 'fr',
      metadata: body.metadata ?? null,
      createdAt: now,
    });
    return paymentLinkView(
      { link: record, holder: null, paidCount: 0, paidAmount: 0 },
      ctx.publicBaseUrl,
      now,
    );
  }

  async function page(request: PaymentLinksListRequest): Promise<PaymentLinksPage> {
    const { merchantId, mode, limit, cursor } = request;
    const after = cursor === undefined ? null : decodeCursor(cursor);
    if (cursor !== undefined && !after) {
      throw new AppError('VALIDATION400_BAD_REQUEST', 'request validation failed', {
        details: {
          failures: [{ field: 'cursor', message: 'cursor is not one this API gave out' }],
        },
      });
    }
    const rows = await links.list({ merchantId, mode }, after, limit + 1);
    const shown = rows.slice(0, limit);
    const now = clock();
    return {
      links: shown.map((row) => paymentLinkView(row, ctx.publicBaseUrl, now)),
      nextCursor: rows.length > limit ? encodeCursor(shown.at(-1)!.cursor) : null,
    };
  }

  return Promise.all([
    serveRpc(nats, prefix, Rpc.paymentLinksCreate, createOnce, logger),
    serveRpc(nats, prefix, Rpc.paymentLinksList, page, logger),
    serveRpc(
      nats,
      prefix,
      Rpc.paymentLinksGet,
      ({ merchantId, mode, id }) => read({ merchantId, mode }, id),
      logger,
    ),
    serveRpc(
      nats,
      prefix,
      Rpc.paymentLinksDeactivate,
      async ({ merchantId, mode, id }): Promise<PaymentLinkWriteReply> => {
        const scope = { merchantId, mode };
        const deactivated = isUuid(id) ? await links.deactivate(scope, id, clock()) : 'missing';
        if (deactivated === 'missing') throw linkNotFound();
        const view = await read(scope, id);
        // Deactivating a deactivated link answers it again, having done nothing.
        return deactivated === 'already' ? { ...view, unchanged: true } : view;
      },
      logger,
    ),
    serveRpc(
      nats,
      prefix,
      Rpc.paymentLinkView,
      async ({ token }) => {
        const found = await links.findByToken(token);
        if (!found) throw linkNotFound();
        return paymentLinkPublicView(found, clock());
      },
      logger,
    ),
    serveRpc(nats, prefix, Rpc.paymentLinkPay, pay, logger),
  ]);
}
