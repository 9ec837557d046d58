import { randomBytes, randomUUID } from 'node:crypto';
import {
  isUuid,
  Rpc,
  type MerchantScope,
  type PaymentLinkCreateRequest,
  type PaymentLinksListRequest,
  type PaymentLinksPage,
  type PaymentLinkView,
} from '@dzpay/contracts';
import { AppError, serveRpc, type RpcServer } from '@dzpay/platform';
import { paymentLinksRepository } from '../adapters/payment-links-repository.ts';
import type { PaymentsCore } from '../core.ts';
import { createRefusalOf, heldUntilOf } from '../domain/payment-link.ts';
import type { PaymentRecord } from '../domain/payment-record.ts';
import { paymentLinkPublicView, paymentLinkView } from '../domain/payment-link-view.ts';
import { decodeCursor, encodeCursor } from '../domain/payments-cursor.ts';
import { linkNotFound, linkPayer, refusalError } from './payment-link-pay.ts';
import type { ServiceWiring } from './service-wiring.ts';
import { settlementRunner } from './settlement.ts';

/** Where a payment made through a link sends its payer (the payments' own settings). */
export interface PaymentLinkSettings {
  publicBaseUrl: string;
  windowMs: number;
  /** How long a press holds a single-use link before its payer reaches the card form. */
  pressHoldMs: number;
}

/** A link's public token: `pl_` and 16 random bytes, unguessable and URL-safe. */
const newLinkToken = () => `pl_${randomBytes(16).toString('base64url')}`;

/** payments.links.*: payment links, and the payments their payers make. */
export async function servePaymentLinkHandlers(
  wiring: ServiceWiring,
  core: PaymentsCore,
  settings: PaymentLinkSettings,
): Promise<RpcServer[]> {
  const { nats, prefix, sql, logger, clock } = wiring;
  const links = paymentLinksRepository(sql, settings.pressHoldMs);
  const pressHoldEnded = (payment: PaymentRecord) =>
    clock() >=
    heldUntilOf(
      { ...payment, cardOrderPlaced: payment.cardnetOrderId !== null },
      settings.pressHoldMs,
    );
  // As payments.register: a payment opened under a payer's form nonce holds its
  // settlement lease as long as the nonce's key, so a resend that takes the key over
  // from a dead send takes the payment over too.
  const leaseMs = core.idempotency.leaseMs;
  const pay = linkPayer({
    links,
    open: {
      repository: core.repository,
      cardNetworks: core.cardNetworks,
      health: core.health,
      logger,
      publicBaseUrl: settings.publicBaseUrl,
      windowMs: settings.windowMs,
      clock,
      leaseMs,
    },
    idempotency: core.idempotency,
    // Registering an order moves no money: nothing here fences a call on `callMs`.
    withSettlement: settlementRunner({
      repository: core.repository,
      logger,
      leaseMs,
      callMs: leaseMs,
    }),
    reconcile: (record) => core.settle.reconcile(record),
    expireIdlePress: (record) => core.settle.expireUnplaced(record, pressHoldEnded),
  });

  async function read(scope: MerchantScope, id: string): Promise<PaymentLinkView> {
    const found = isUuid(id) ? await links.findForMerchant(scope, id) : null;
    if (!found) throw linkNotFound();
    return paymentLinkView(found, settings.publicBaseUrl, clock());
  }

  async function create({ merchant, link }: PaymentLinkCreateRequest): Promise<PaymentLinkView> {
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
      settings.publicBaseUrl,
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
      links: shown.map((row) => paymentLinkView(row, settings.publicBaseUrl, now)),
      nextCursor: rows.length > limit ? encodeCursor(shown.at(-1)!.cursor) : null,
    };
  }

  return Promise.all([
    serveRpc(nats, prefix, Rpc.paymentLinksCreate, create, logger),
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
      async ({ merchantId, mode, id }) => {
        const scope = { merchantId, mode };
        if (!isUuid(id) || !(await links.deactivate(scope, id, clock()))) throw linkNotFound();
        return read(scope, id);
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
