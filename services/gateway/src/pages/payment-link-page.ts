import { formatDzd, type Language, type PaymentLinkPublicView } from '@dzpay/contracts';
import { escapeHtml as e } from '@dzpay/platform';
import { layout, type Page } from './layout.ts';
import { formatTime, LANGUAGE_NAMES } from './messages.ts';
import { PaymentLinkMessages } from './payment-link-messages.ts';

/** What the payer's page of a link shows, besides the link itself. */
export interface LinkPageView {
  merchantName: string;
  /** Centimes of the merchant's fee, added to the amount. */
  fee: number;
  /** `/link/<token>`: the page, its form and its QR image. */
  path: string;
  /**
   * This render's nonce (a hidden field of its form): the same form sent twice (a double
   * click, a retry) resumes the payment it opened instead of being told someone pays.
   */
  attempt: string;
  /** The amount the payer typed last, shown back with the refusal. */
  typed?: string;
  refused?: boolean;
}

/** The hidden field that names the page's render (payments' idempotency key for the link). */
const attemptField = (attempt: string) =>
  `<input type="hidden" name="attempt" value="${e(attempt)}">`;

/** Links to the same page in the other languages. */
function languageSwitch(path: string, current: Language): string {
  const links = (Object.keys(LANGUAGE_NAMES) as Language[])
    .filter((language) => language !== current)
    .map(
      (language) =>
        `<a href="${e(path)}?lang=${language}" lang="${language}" hreflang="${language}">${LANGUAGE_NAMES[language]}</a>`,
    );
  return `<nav aria-label="${e(PaymentLinkMessages[current].language)}">${links.join('')}</nav>`;
}

const row = (label: string, value: string, className = '') =>
  `<dt class="${className}">${e(label)}</dt><dd class="${className}">${e(value)}</dd>`;

/** The DZD amount of centimes as a number input takes it: `1500.5`, never grouped. */
const inputValue = (centimes: number) => String(centimes / 100);

/**
 * A payment link's page: who is paid and for what, the amount (fixed, with the fee and
 * the total; or a box for the payer's amount between the link's bounds), the button that
 * makes the payment, and the page's QR code for paying from another phone.
 */
export function paymentLinkPage(
  link: PaymentLinkPublicView,
  view: LinkPageView,
  language: Language,
): Page {
  const t = PaymentLinkMessages[language];
  const action = `${view.path}?lang=${language}`;
  let form: string;
  if (link.amount !== null) {
    const total = link.amount + view.fee;
    form = `<dl>
  ${row(t.amount, formatDzd(link.amount, language))}
  ${row(t.fee, formatDzd(view.fee, language))}
  ${row(t.total, formatDzd(total, language), 'total')}
</dl>
<form method="post" action="${e(action)}">
  ${attemptField(view.attempt)}
  <button type="submit">${e(t.pay)} · ${e(formatDzd(total, language))}</button>
</form>`;
  } else {
    const min = formatDzd(link.minAmount!, language);
    const max = formatDzd(link.maxAmount!, language);
    const hint = `${t.between(min, max)}${view.fee > 0 ? ` ${t.feeAdded(formatDzd(view.fee, language))}` : ''}`;
    const error = view.refused
      ? `<p id="amount-error" class="failed" role="alert">${e(t.amountRefused(min, max))}</p>`
      : '';
    form = `<form method="post" action="${e(action)}">
  ${attemptField(view.attempt)}
  <p><label for="amount">${e(t.chooseAmount)}</label></p>
  <p><input id="amount" name="amount" type="number" inputmode="decimal" dir="ltr" required
    min="${inputValue(link.minAmount!)}" max="${inputValue(link.maxAmount!)}" step="0.01"
    value="${e(view.typed ?? '')}" aria-describedby="amount-hint${view.refused ? ' amount-error' : ''}"${view.refused ? ' aria-invalid="true"' : ''}></p>
  <p id="amount-hint" class="note">${e(hint)}</p>
  ${error}
  <button type="submit">${e(t.continue)}</button>
</form>`;
  }
  const body = `
<h1>${e(view.merchantName)}</h1>
<p class="label"><strong>${e(link.label)}</strong></p>
${form}
<p class="note">${e(t.cardNote)}</p>
<details class="scan"><summary>${e(t.scanTitle)}</summary>
  <img src="${e(view.path)}/qr" alt="${e(t.scanAlt)}" width="200" height="200">
</details>
${languageSwitch(view.path, language)}`;
  return layout({ language, title: `${link.label} · ${view.merchantName}`, body });
}

/** Why a link takes no payment now, in the payer's words. */
export function paymentLinkProblemPage(
  kind:
    | 'notFound'
    | 'expired'
    | 'deactivated'
    | 'used'
    | 'beingPaid'
    | 'unavailable'
    | 'amountUnavailable'
    | 'notReady',
  language: Language,
  options: {
    path?: string;
    merchantName?: string;
    retryAt?: string | null;
    /** The form to send again as it was (notReady): its nonce resumes the same payment. */
    retry?: { attempt: string; amount?: string };
  } = {},
): Page {
  const t = PaymentLinkMessages[language];
  const next =
    kind === 'beingPaid'
      ? options.retryAt
        ? t.retryAt(formatTime(options.retryAt, language))
        : ''
      : kind === 'notFound' || kind === 'unavailable' || kind === 'notReady'
        ? ''
        : t.askMerchant;
  const retry =
    options.retry && options.path
      ? `<form method="post" action="${e(`${options.path}?lang=${language}`)}">
  ${attemptField(options.retry.attempt)}
  ${options.retry.amount ? `<input type="hidden" name="amount" value="${e(options.retry.amount)}">` : ''}
  <button type="submit">${e(t.tryAgain)}</button>
</form>`
      : '';
  const body = `
${options.merchantName ? `<p>${e(options.merchantName)}</p>` : ''}
<h1 class="status failed">${e(t[kind])}</h1>
${next ? `<p>${e(next)}</p>` : ''}
${retry}
${options.path ? languageSwitch(options.path, language) : ''}`;
  return layout({ language, title: t[kind], body });
}
