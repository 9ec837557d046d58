import { randomInt } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply } from 'fastify';
import { parseCardForm } from '../domain/card.ts';
import { payOrder, redirectTarget, type Order } from '../domain/order.ts';
import { judgeCard } from '../domain/test-cards.ts';
import type { OrderBook } from '../order-book.ts';
import { PAGE_HEADERS } from '../pages/html.ts';
import { renderFormPage, renderNotFoundPage } from '../pages/form-page.ts';
import { paramsOf } from './rest-params.ts';

export interface FormDeps {
  book: OrderBook;
  clock: () => Date;
  logger: FastifyBaseLogger;
}

/**
 * The payer's side: the card form and its submission. An order decides once; every
 * later visit or submit only sends the payer back where the first decision did.
 */
export function formRoutes(app: FastifyInstance, deps: FormDeps): void {
  app.get('/payment/merchants/form', async (request, reply) => {
    const order = orderOf(paramsOf(request).mdOrder);
    if (!order) return html(reply, 404, renderNotFoundPage());
    if (order.status !== 0) return reply.redirect(redirectTarget(order), 303);
    return html(reply, 200, renderFormPage(order));
  });

  app.post('/payment/merchants/pay', async (request, reply) => {
    const fields = paramsOf(request);
    const order = orderOf(fields.mdOrder);
    if (!order) return html(reply, 404, renderNotFoundPage());
    if (order.status !== 0) return reply.redirect(redirectTarget(order), 303);

    const card = parseCardForm(fields);
    if (!card.ok) {
      const retry = { error: card.error, cardholderName: fields.cardholderName ?? '' };
      return html(reply, 422, renderFormPage(order, retry));
    }
    const now = deps.clock();
    const verdict = judgeCard(card.value, now);
    const approvalCode = String(randomInt(0, 1_000_000)).padStart(6, '0');
    // No await between the read above and this save: two submits cannot both charge.
    const paid = payOrder(order, { card: card.value, verdict, approvalCode }, now);
    deps.book.save(paid.order);
    deps.logger.info(
      {
        orderId: order.orderId,
        maskedPan: paid.order.card?.maskedPan,
        outcome: paid.order.outcome,
        charged: paid.charged,
      },
      'payment decided',
    );
    return reply.redirect(redirectTarget(paid.order), 303);
  });

  function orderOf(mdOrder: string | undefined): Order | undefined {
    return mdOrder ? deps.book.byId(mdOrder, deps.clock()) : undefined;
  }
}

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).headers(PAGE_HEADERS).send(body);
}
