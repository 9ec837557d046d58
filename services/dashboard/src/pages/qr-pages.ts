import {
  centimesToDzd,
  QrToken,
  Rpc,
  type Language,
  type QrCodeRecordView,
  type QrConfiguration,
} from '@dzpay/contracts';
import { AppError, escapeHtml as e, isAppError } from '@dzpay/platform';
import { payerUrlOf, renderQrImage } from '@dzpay/rendering';
import { DashboardPaths } from '../navigation.ts';
import type { PageContext, PageKit } from '../page-kit.ts';
import type { Ask } from './ask.ts';
import { fieldOf, queryString } from './form.ts';
import { dateTime, money } from './format.ts';
import { pageLinks, type PageLinks } from './pagination.ts';
import { parseQrForm } from './qr-form.ts';
import { QrPageMessages, type QrText } from './qr-messages.ts';
import { refusalText } from './refusal.ts';
import { tableHtml } from './table.ts';

const QR_PAGE_SIZE = 20;
/** The PNG offered for download and print: large enough for a poster at the till. */
const PNG_SIZE = 1024;

const qrPath = (token: string) => `${DashboardPaths.qrCodes}/${encodeURIComponent(token)}`;

/** The QR code pages: the list, one code (set, unset), its image and a print view. */
export function registerQrPages(kit: PageKit, ask: Ask): void {
  const base = `${DashboardPaths.qrCodes}/:token`;
  const tokenOf = (context: PageContext) => (context.request.params as { token: string }).token;

  /** The code's configuration, or QR_CODE404 when it is not this merchant's in this mode. */
  async function owned(context: PageContext, token: string) {
    const notFound = new AppError('QR_CODE404_NOT_FOUND', 'QR code not found');
    if (!QrToken.safeParse(token).success) throw notFound;
    const reply = await ask(Rpc.qrConfigGet, { token });
    if (reply.merchantId !== context.scope.merchantId || reply.mode !== context.scope.mode)
      throw notFound;
    return reply;
  }

  kit.get(DashboardPaths.qrCodes, async (context) => {
    const text = QrPageMessages[context.language];
    const cursor = fieldOf(context.request.query, 'cursor');
    try {
      const page = await ask(Rpc.qrCodesList, {
        ...context.scope,
        limit: QR_PAGE_SIZE,
        ...(cursor ? { cursor } : {}),
      });
      const links = pageLinks(cursor, fieldOf(context.request.query, 'back'), page.nextCursor);
      return context.page(text.qrTitle, qrListHtml(page.codes, links, context.language));
    } catch (error) {
      return problemPage(context, text.qrTitle, error);
    }
  });

  kit.get(base, async (context) => {
    const text = QrPageMessages[context.language];
    const token = tokenOf(context);
    try {
      const reply = await owned(context, token);
      const view = {
        token,
        state: reply.state,
        config: reply.config,
        payerUrl: payerUrlOf(kit.deps.publicBaseUrl, token),
        csrfField: context.csrfField(),
        mayConfigure: context.allows?.('POST', `${qrPath(token)}/set`) ?? true,
      };
      return context.page(text.qrCodeTitle(token), qrCodeHtml(view, context.language));
    } catch (error) {
      return problemPage(context, text.qrTitle, error);
    }
  });

  kit.get(`${base}/print`, async (context) => {
    const text = QrPageMessages[context.language];
    const token = tokenOf(context);
    try {
      const reply = await owned(context, token);
      const url = payerUrlOf(kit.deps.publicBaseUrl, token);
      const svg = (await renderQrImage(url, { format: 'svg', size: PNG_SIZE })).body.toString();
      return context.page(
        text.scanToPay,
        qrPrintHtml(svg, url, context.session.merchantName, reply.config, context.language),
      );
    } catch (error) {
      return problemPage(context, text.qrTitle, error);
    }
  });

  kit.download(`${base}/image`, async (context) => {
    const token = tokenOf(context);
    const format = fieldOf(context.request.query, 'format') === 'png' ? 'png' : 'svg';
    try {
      await owned(context, token);
    } catch (error) {
      if (!isAppError(error)) throw error;
      const status = error.code === 'QR_CODE404_NOT_FOUND' ? 404 : 503;
      await context.reply.code(status).type('text/plain; charset=utf-8').send(error.message);
      return;
    }
    const image = await renderQrImage(payerUrlOf(kit.deps.publicBaseUrl, token), {
      format,
      size: PNG_SIZE,
    });
    const filename = `qr-${token.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 100)}.${format}`;
    const disposition = fieldOf(context.request.query, 'download') ? 'attachment' : 'inline';
    await context.reply
      .type(image.contentType)
      .header('content-disposition', `${disposition}; filename="${filename}"`)
      .header('etag', image.etag)
      .send(image.body);
  });

  kit.post(`${base}/set`, async (context) => {
    const token = tokenOf(context);
    const text = QrPageMessages[context.language];
    try {
      await owned(context, token);
      const merchant = await kit.deps.accounts.findMerchant(context.scope.merchantId);
      if (!merchant) throw new AppError('SERVICE503_UNAVAILABLE', 'merchant not readable');
      const now = kit.deps.clock?.() ?? new Date();
      const parsed = parseQrForm(token, context.request.body, now, merchant, context.language);
      if (!parsed.ok) await context.flash('error', parsed.problems.join(' '));
      else {
        await ask(Rpc.qrConfigSet, { ...context.scope, ...parsed.command });
        await context.flash('ok', text.saved);
      }
    } catch (error) {
      await context.flash('error', refusalOf(error, context.language));
    }
    await context.reply.redirect(qrPath(token), 303);
  });

  kit.post(`${base}/unset`, async (context) => {
    const token = tokenOf(context);
    const text = QrPageMessages[context.language];
    try {
      await owned(context, token);
      await ask(Rpc.qrConfigUnset, { ...context.scope, token });
      await context.flash('ok', text.unsetDone);
    } catch (error) {
      await context.flash('error', refusalOf(error, context.language));
    }
    await context.reply.redirect(qrPath(token), 303);
  });
}

function refusalOf(error: unknown, language: Language): string {
  if (isAppError(error) && error.code === 'QR_CODE404_NOT_FOUND')
    return QrPageMessages[language].notFound;
  return refusalText(error, language);
}

function problemPage(context: PageContext, title: string, error: unknown) {
  const text = QrPageMessages[context.language];
  const notFound = isAppError(error) && error.code === 'QR_CODE404_NOT_FOUND';
  context.reply.code(notFound ? 404 : 503);
  const message = refusalOf(error, context.language);
  return context.page(
    notFound ? message : title,
    `<p class="flash error" role="alert">${e(message)}</p><p><a href="${DashboardPaths.qrCodes}">${e(text.backToCodes)}</a></p>`,
  );
}

const amountsText = (config: QrConfiguration | null, language: Language) =>
  config ? config.amounts.map((amount) => money(amount, language)).join(' · ') : '—';

function qrListHtml(
  codes: readonly QrCodeRecordView[],
  links: PageLinks,
  language: Language,
): string {
  const text = QrPageMessages[language];
  if (codes.length === 0 && !links.previous) return `<p>${e(text.noCodes)}</p>`;
  const table = tableHtml<QrCodeRecordView>(
    text.qrTitle,
    [
      {
        label: text.token,
        cell: (code) => `<a href="${e(qrPath(code.token))}"><bdi>${e(code.token)}</bdi></a>`,
      },
      {
        label: text.state,
        cell: (code) => `<span class="badge">${e(text.states[code.state])}</span>`,
      },
      { label: text.amounts, cell: (code) => e(amountsText(code.config, language)) },
      {
        label: text.expiresAt,
        cell: (code) =>
          e(code.config?.expiresAt ? dateTime(code.config.expiresAt, language) : text.never),
      },
      {
        label: text.singleUse,
        cell: (code) => e(code.config ? (code.config.singleUse ? text.yes : text.no) : '—'),
      },
      { label: text.created, cell: (code) => e(dateTime(code.createdAt, language)) },
    ],
    codes,
  );
  const href = (fields: Record<string, string>) =>
    `${DashboardPaths.qrCodes}${queryString(fields)}`;
  const nav =
    links.next || links.previous
      ? `<nav class="actions" aria-label="${e(text.pagination)}">${
          links.previous
            ? `<a rel="prev" href="${e(href(links.previous))}">${e(text.previous)}</a>`
            : ''
        } ${links.next ? `<a rel="next" href="${e(href(links.next))}">${e(text.next)}</a>` : ''}</nav>`
      : '';
  return `${table}\n${nav}`;
}

interface QrCodeView {
  token: string;
  state: QrCodeRecordView['state'];
  config: QrConfiguration | null;
  payerUrl: string;
  csrfField: string;
  /** The role may set and unset the amounts (an accountant only reads them). */
  mayConfigure: boolean;
}

/** An ISO instant as the datetime-local box shows it, in Algeria's time (UTC+1). */
function algeriaLocal(iso: string): string {
  return new Date(Date.parse(iso) + 3600_000).toISOString().slice(0, 16);
}

function configFormHtml(view: QrCodeView, text: QrText): string {
  const action = `${qrPath(view.token)}`;
  const amounts = view.config?.amounts.map((amount) => String(centimesToDzd(amount))).join('\n');
  const expires = view.config?.expiresAt ? algeriaLocal(view.config.expiresAt) : '';
  return `<section class="card" aria-labelledby="configure"><h2 id="configure">${e(text.configure)}</h2>
<form method="post" action="${e(action)}/set" class="stack">${view.csrfField}
<div><label for="qr-amounts">${e(text.amountsLabel)}</label>
<textarea id="qr-amounts" name="amounts" rows="4" inputmode="decimal" dir="ltr" aria-describedby="qr-amounts-hint">${e(amounts ?? '')}</textarea>
<p id="qr-amounts-hint" class="muted">${e(text.amountsHint)}</p></div>
<div><label for="qr-expires">${e(text.expiresLabel)}</label>
<input id="qr-expires" name="expiresAt" type="datetime-local" value="${e(expires)}"></div>
<label class="check"><input type="checkbox" name="singleUse" value="on"${view.config?.singleUse ? ' checked' : ''}> ${e(text.singleUseLabel)}</label>
<div class="actions"><button type="submit">${e(text.save)}</button></div>
</form></section>
<section class="card" aria-labelledby="unset"><h2 id="unset">${e(text.unset)}</h2>
<p>${e(text.unsetHint)}</p>
<form method="post" action="${e(action)}/unset">${view.csrfField}<button type="submit" class="danger">${e(text.unsetSubmit)}</button></form></section>`;
}

function qrCodeHtml(view: QrCodeView, language: Language): string {
  const text = QrPageMessages[language];
  const image = `${qrPath(view.token)}/image`;
  const rows: [string, string][] = [
    [text.token, `<code>${e(view.token)}</code>`],
    [text.state, `<span class="badge">${e(text.states[view.state])}</span>`],
    [text.amounts, e(amountsText(view.config, language))],
    [
      text.expiresAt,
      e(view.config?.expiresAt ? dateTime(view.config.expiresAt, language) : text.never),
    ],
    [text.singleUse, e(view.config ? (view.config.singleUse ? text.yes : text.no) : '—')],
    [text.payerUrl, `<a href="${e(view.payerUrl)}" dir="ltr"><code>${e(view.payerUrl)}</code></a>`],
  ];
  if (view.config) rows.push([text.updatedAt, e(dateTime(view.config.updatedAt, language))]);
  return `<p><a href="${DashboardPaths.qrCodes}">${e(text.backToCodes)}</a></p>
<section class="card"><dl class="fields">${rows.map(([label, value]) => `<dt>${e(label)}</dt><dd>${value}</dd>`).join('')}</dl></section>
<section class="card" aria-labelledby="image"><h2 id="image">${e(text.image)}</h2>
<img class="qr" src="${e(image)}?format=svg" alt="${e(text.imageAlt(view.payerUrl))}" width="224" height="224">
<div class="actions"><a class="button secondary" href="${e(image)}?format=svg&amp;download=1" download>${e(text.downloadSvg)}</a>
<a class="button secondary" href="${e(image)}?format=png&amp;download=1" download>${e(text.downloadPng)}</a>
<a class="button secondary" href="${e(qrPath(view.token))}/print">${e(text.print)}</a></div></section>
${view.mayConfigure ? configFormHtml(view, text) : ''}`;
}

/** The print view: the code large, who it pays, and the amounts it offers. */
function qrPrintHtml(
  svg: string,
  payerUrl: string,
  merchantName: string,
  config: QrConfiguration | null,
  language: Language,
): string {
  const text = QrPageMessages[language];
  // The renderer's SVG is ours (no text from outside but the URL it encodes); it gains
  // an accessible name.
  const accessible = svg.replace(
    '<svg ',
    `<svg role="img" aria-label="${e(text.imageAlt(payerUrl))}" width="320" height="320" `,
  );
  return `<section class="card print">
<p class="merchant"><strong>${e(merchantName)}</strong></p>
${accessible}
${config ? `<p>${e(amountsText(config, language))}</p>` : ''}
<p dir="ltr"><code>${e(payerUrl)}</code></p>
</section>`;
}
