import { formatDzd, type Language, type PartnerProduct } from '@dzpay/contracts';
import { escapeHtml } from '@dzpay/platform';
import { layout, type Page } from './layout.ts';
import { formatTime, Messages } from './messages.ts';

type Texts = (typeof Messages)[Language];

const row = (label: string, value: string, className = '') =>
  `<dt class="${className}">${escapeHtml(label)}</dt><dd class="${className}">${escapeHtml(value)}</dd>`;

/** The form where a payer types the reference a partner gave them. */
export function referenceFormPage(
  merchantName: string,
  action: string,
  mode: string,
  language: Language,
): Page {
  const t = Messages[language];
  const body = `
<h1>${escapeHtml(merchantName)}</h1>
<form method="get" action="${escapeHtml(action)}">
  <p><label for="reference">${escapeHtml(t.enterReference)}</label></p>
  <p><input id="reference" name="reference" required maxlength="255" autocomplete="off" dir="auto"></p>
  <input type="hidden" name="lang" value="${language}">
  <input type="hidden" name="mode" value="${escapeHtml(mode)}">
  <button type="submit">${escapeHtml(t.find)}</button>
</form>`;
  return layout({ language, title: merchantName, body });
}

/** A partner's product, its price with the fee, and the button that starts paying it. */
export function productPage(
  view: { merchantName: string; product: PartnerProduct; amount: number; fee: number },
  action: string,
  language: Language,
): Page {
  const t = Messages[language];
  const total = view.amount + view.fee;
  const body = `
<h1>${escapeHtml(view.merchantName)}</h1>
<dl>
  ${view.product.label ? row(t.product, view.product.label) : ''}
  ${row(t.reference, view.product.reference)}
  ${row(t.amount, formatDzd(view.amount, language))}
  ${row(t.fee, formatDzd(view.fee, language))}
  ${row(t.total, formatDzd(total, language), 'total')}
</dl>
<form method="post" action="${escapeHtml(action)}">
  <button type="submit">${escapeHtml(t.pay)} · ${escapeHtml(formatDzd(total, language))}</button>
</form>
<p class="note">${escapeHtml(t.cardNote)}</p>`;
  return layout({ language, title: t.title, body });
}

/** A static QR code's amounts: one goes straight to confirmation, several are a choice. */
export function qrAmountsPage(
  view: { merchantName: string; amounts: number[]; fee: number },
  action: string,
  language: Language,
): Page {
  const t = Messages[language];
  const choices = view.amounts
    .map(
      (amount, index) => `
<form method="post" action="${escapeHtml(action)}">
  <input type="hidden" name="choice" value="${index}">
  <button type="submit">${escapeHtml(t.payThis)} ${escapeHtml(formatDzd(amount + view.fee, language))}</button>
</form>`,
    )
    .join('<p></p>');
  const heading = view.amounts.length > 1 ? `<p>${escapeHtml(t.chooseAmount)}</p>` : '';
  const fee =
    view.fee > 0
      ? `<p class="note">${escapeHtml(t.fee)}: ${escapeHtml(formatDzd(view.fee, language))}</p>`
      : '';
  return layout({
    language,
    title: t.title,
    body: `<h1>${escapeHtml(view.merchantName)}</h1>${heading}${choices}${fee}<p class="note">${escapeHtml(t.cardNote)}</p>`,
  });
}

/** Why nothing can be paid right now, in the payer's words. */
export function agencyProblemPage(
  kind: 'productNotFound' | 'alreadyPaid' | 'partnerUnavailable' | 'nothingToPay' | 'beingPaid',
  language: Language,
  retryAt?: string | null,
): Page {
  const t: Texts = Messages[language];
  const retry =
    kind === 'beingPaid'
      ? `<p>${escapeHtml(retryAt ? `${t.retryAt} ${formatTime(retryAt, language)}.` : t.retryLater)}</p>`
      : '';
  return layout({ language, title: t[kind], body: `<h1>${escapeHtml(t[kind])}</h1>${retry}` });
}
