import { Rpc } from '@dzpay/contracts';
import { isAppError } from '@dzpay/platform';
import { DashboardPaths, safeReturnPath } from '../navigation.ts';
import type { PageContext, PageKit } from '../page-kit.ts';
import { askOver, type Ask } from './ask.ts';
import { fieldOf } from './form.ts';
import { pageLinks } from './pagination.ts';
import type { DashboardDeps } from '../settings.ts';
import {
  deliveriesFilterOf,
  deliveriesFormOf,
  deliveriesRequest,
} from './webhook-deliveries-filter.ts';
import { DeliveriesMessages, type DeliveriesText } from './webhook-deliveries-messages.ts';
import { deliveriesPageHtml, type DeliveriesPageView } from './webhook-deliveries-view.ts';

/** Deliveries one page of the list shows. */
const DELIVERIES_PAGE_SIZE = 25;

/** A refusal of the dispatcher, said in the page's language. */
function refusalOf(error: unknown, text: DeliveriesText): string {
  if (!isAppError(error)) throw error;
  if (error.code === 'WEBHOOK404_DELIVERY_NOT_FOUND') return text.notFound;
  if (error.code === 'SERVICE503_UNAVAILABLE') return text.unavailable;
  return text.refused(error.message);
}

/**
 * Every webhook delivery of the merchant, with filters and a resend button: the page
 * GET /dashboard/webhooks/deliveries (the dispatcher's `webhooks.deliveries.all`, as
 * GET /api/v1/webhooks/deliveries asks it) and the resend form
 * POST /dashboard/webhooks/deliveries/:id/replay (the per-payment page's replay).
 */
export function webhookDeliveriesPages(kit: PageKit, dash: DashboardDeps): void {
  const ask: Ask = askOver(dash);

  kit.get(DashboardPaths.webhookDeliveries, async (context) => {
    const text = DeliveriesMessages[context.language];
    const query = context.request.query;
    const form = deliveriesFormOf(query);
    const cursor = fieldOf(query, 'cursor');
    const view: DeliveriesPageView = {
      language: context.language,
      form,
      problems: [],
      deliveries: [],
      csrfField: context.csrfField(),
      returnTo: safeReturnPath(context.request.url, DashboardPaths.webhookDeliveries),
      mayResend: (path) => context.allows?.('POST', path) ?? true,
    };
    const outcome = deliveriesFilterOf(form, text);
    if (!outcome.ok) {
      view.problems = outcome.problems;
      context.reply.code(400);
    } else {
      try {
        const page = await ask(
          Rpc.webhookDeliveriesList,
          deliveriesRequest(context.scope, outcome.filter, DELIVERIES_PAGE_SIZE, cursor),
        );
        view.deliveries = page.deliveries;
        view.links = pageLinks(cursor, fieldOf(query, 'back'), page.nextCursor);
      } catch (error) {
        view.problems = [refusalOf(error, text)];
        context.reply.code(
          isAppError(error) && error.code === 'SERVICE503_UNAVAILABLE' ? 503 : 400,
        );
      }
    }
    return context.page(text.title, deliveriesPageHtml(view));
  });

  kit.post(`${DashboardPaths.webhookDeliveries}/:id/replay`, async (context) => {
    await resend(context, ask);
  });
}

/** Sends a delivery again and goes back to the list it was on, saying what happened. */
async function resend(context: PageContext, ask: Ask): Promise<void> {
  const text = DeliveriesMessages[context.language];
  const { id } = context.request.params as { id: string };
  const back = safeReturnPath(
    fieldOf(context.request.body, 'back'),
    DashboardPaths.webhookDeliveries,
  );
  // Back to this list only: the field is the page's own, never another place.
  const returnTo = back.startsWith(DashboardPaths.webhookDeliveries)
    ? back
    : DashboardPaths.webhookDeliveries;
  try {
    await ask(Rpc.deliveryReplay, { ...context.scope, deliveryId: id });
    await context.flash('ok', text.resent);
  } catch (error) {
    await context.flash('error', refusalOf(error, text));
  }
  await context.reply.redirect(returnTo, 303);
}
