import { Rpc, type MerchantTerms, type PaymentListItem } from '@dzpay/contracts';
import { AppError, isAppError, escapeHtml as e } from '@dzpay/platform';
import { renderQrImage } from '@dzpay/rendering';
import { recordDashboardAudit } from './audit-record.ts';
import { DashboardPaths } from '../navigation.ts';
import type { PageContext, PageKit } from '../page-kit.ts';
import type { Ask } from './ask.ts';
import { fieldOf } from './form.ts';
import { pageLinks } from './pagination.ts';
import { formValuesOf, linkRefusalText, parsePaymentLinkForm } from './payment-link-form.ts';
import { PaymentLinkPageMessages } from './payment-link-messages.ts';
import {
  deactivateHtml,
  linkHtml,
  linkPath,
  linksListHtml,
  newLinkHtml,
} from './payment-link-views.ts';

const LINKS_PAGE_SIZE = 20;
/** The link's latest payments shown on its page; the payments list has them all. */
const LINK_PAYMENTS_SHOWN = 10;
/** The PNG offered for download: large enough for a poster at the till. */
const PNG_SIZE = 1024;

/** The payment links: list, create, one link with its QR image, deactivate. */
export function registerPaymentLinkPages(kit: PageKit, ask: Ask): void {
  const base = `${DashboardPaths.paymentLinks}/:id`;
  const idOf = (context: PageContext) => (context.request.params as { id: string }).id;
  const mayManage = (context: PageContext) =>
    context.allows?.('POST', DashboardPaths.paymentLinks) ?? true;

  /** The merchant's terms now, as the API sends them with a new link (range, wallet). */
  async function termsOf(context: PageContext): Promise<MerchantTerms> {
    const merchant = await kit.deps.accounts.findMerchant(context.scope.merchantId);
    if (!merchant) throw new AppError('SERVICE503_UNAVAILABLE', 'merchant not readable');
    return {
      ...context.scope,
      name: merchant.name,
      feeDzd: merchant.feeDzd,
      minAmount: merchant.minAmount,
      maxAmount: merchant.maxAmount,
      hasWallet: merchant.walletId !== null,
    };
  }

  kit.get(DashboardPaths.paymentLinks, async (context) => {
    const t = PaymentLinkPageMessages[context.language];
    const cursor = fieldOf(context.request.query, 'cursor');
    try {
      const page = await ask(Rpc.paymentLinksList, {
        ...context.scope,
        limit: LINKS_PAGE_SIZE,
        ...(cursor ? { cursor } : {}),
      });
      const links = pageLinks(cursor, fieldOf(context.request.query, 'back'), page.nextCursor);
      return context.page(
        t.title,
        linksListHtml(page.links, links, context.language, mayManage(context)),
      );
    } catch (error) {
      return problemPage(context, error);
    }
  });

  kit.get(`${DashboardPaths.paymentLinks}/new`, (context) => {
    const t = PaymentLinkPageMessages[context.language];
    const values = formValuesOf({}, context.language);
    return Promise.resolve(
      context.page(t.newTitle, newLinkHtml(values, [], context.csrfField(), context.language)),
    );
  });

  kit.post(DashboardPaths.paymentLinks, async (context) => {
    const t = PaymentLinkPageMessages[context.language];
    const values = formValuesOf(context.request.body, context.language);
    const form = () => newLinkHtml(values, problems, context.csrfField(), context.language);
    let problems: string[] = [];
    const parsed = parsePaymentLinkForm(values, context.language);
    if (!parsed.ok) {
      problems = parsed.problems;
      context.reply.code(400);
      return context.page(t.newTitle, form());
    }
    try {
      const link = await ask(Rpc.paymentLinksCreate, {
        merchant: await termsOf(context),
        link: parsed.link,
      });
      await recordDashboardAudit(kit.deps, context, {
        action: 'payment_link.create',
        target: link.id,
        details: { label: link.label },
      });
      await context.flash('ok', t.created);
      await context.reply.redirect(linkPath(link.id), 303);
    } catch (error) {
      problems = [linkRefusalText(error, context.language)];
      context.reply.code(isAppError(error) && error.code === 'SERVICE503_UNAVAILABLE' ? 503 : 400);
      return context.page(t.newTitle, form());
    }
  });

  kit.get(base, async (context) => {
    const t = PaymentLinkPageMessages[context.language];
    try {
      const link = await ask(Rpc.paymentLinksGet, { ...context.scope, id: idOf(context) });
      // The payments part is the payments list's: if it does not answer, the link still shows.
      const payments: PaymentListItem[] | null = await ask(Rpc.paymentsList, {
        ...context.scope,
        limit: LINK_PAYMENTS_SHOWN,
        paymentLinkId: link.id,
      }).then(
        (page) => page.payments,
        () => null,
      );
      return context.page(
        t.linkTitle(link.label),
        linkHtml(link, payments, context.language, mayManage(context)),
      );
    } catch (error) {
      return problemPage(context, error);
    }
  });

  kit.download(`${base}/image`, async (context) => {
    const format = fieldOf(context.request.query, 'format') === 'png' ? 'png' : 'svg';
    let url: string;
    try {
      url = (await ask(Rpc.paymentLinksGet, { ...context.scope, id: idOf(context) })).url;
    } catch (error) {
      if (!isAppError(error)) throw error;
      const status = error.code === 'PAYMENT_LINK404_NOT_FOUND' ? 404 : 503;
      await context.reply
        .code(status)
        .type('text/plain; charset=utf-8')
        .send(linkRefusalText(error, context.language));
      return;
    }
    const image = await renderQrImage(url, { format, size: PNG_SIZE });
    const disposition = fieldOf(context.request.query, 'download') ? 'attachment' : 'inline';
    await context.reply
      .type(image.contentType)
      .header('content-disposition', `${disposition}; filename="payment-link.${format}"`)
      .header('etag', image.etag)
      .send(image.body);
  });

  kit.get(`${base}/deactivate`, async (context) => {
    const t = PaymentLinkPageMessages[context.language];
    try {
      const link = await ask(Rpc.paymentLinksGet, { ...context.scope, id: idOf(context) });
      if (link.state === 'deactivated') {
        await context.reply.redirect(linkPath(link.id), 303);
        return;
      }
      return context.page(
        t.deactivateTitle(link.label),
        deactivateHtml(link, context.csrfField(), context.language),
      );
    } catch (error) {
      return problemPage(context, error);
    }
  });

  kit.post(`${base}/deactivate`, async (context) => {
    const t = PaymentLinkPageMessages[context.language];
    const id = idOf(context);
    try {
      const link = await ask(Rpc.paymentLinksDeactivate, { ...context.scope, id });
      // Deactivated before: audited by the deactivation that did it.
      if (!link.unchanged) {
        await recordDashboardAudit(kit.deps, context, {
          action: 'payment_link.deactivate',
          target: link.id,
          details: { label: link.label },
        });
      }
      await context.flash('ok', t.deactivated);
    } catch (error) {
      await context.flash('error', linkRefusalText(error, context.language));
    }
    await context.reply.redirect(linkPath(id), 303);
  });
}

/** A link that is not this merchant's in this mode (404), or a service that did not answer (503). */
function problemPage(context: PageContext, error: unknown) {
  const t = PaymentLinkPageMessages[context.language];
  const notFound = isAppError(error) && error.code === 'PAYMENT_LINK404_NOT_FOUND';
  const message = linkRefusalText(error, context.language);
  context.reply.code(notFound ? 404 : 503);
  return context.page(
    notFound ? message : t.title,
    `<p class="flash error" role="alert">${e(message)}</p><p><a href="${DashboardPaths.paymentLinks}">${e(t.backToLinks)}</a></p>`,
  );
}
