import type { Language, PaymentLinkView, PaymentListItem } from '@dzpay/contracts';
import { escapeHtml as e } from '@dzpay/platform';
import { DashboardPaths } from '../navigation.ts';
import { queryString } from './form.ts';
import { count, dateTime, money } from './format.ts';
import type { PageLinks } from './pagination.ts';
import { PaymentLinkPageMessages, type PaymentLinkText } from './payment-link-messages.ts';
import type { PaymentLinkFormValues } from './payment-link-form.ts';
import { PaymentsMessages } from './payments-messages.ts';
import { statusLabel } from './status-label.ts';
import { tableHtml } from './table.ts';

export const linkPath = (id: string) => `${DashboardPaths.paymentLinks}/${encodeURIComponent(id)}`;

const STATE_BADGE: Record<PaymentLinkView['state'], string> = {
  active: 'badge ok',
  expired: 'badge',
  deactivated: 'badge bad',
  used: 'badge',
};

const stateBadge = (link: PaymentLinkView, t: PaymentLinkText) =>
  `<span class="${STATE_BADGE[link.state]}">${e(t.states[link.state])}</span>`;

/** "1 500,00 DA" for a fixed link, "500,00 DA to 50 000,00 DA" for a payer's choice. */
function linkAmountText(link: PaymentLinkView, language: Language): string {
  const t = PaymentLinkPageMessages[language];
  if (link.amount !== null) return money(link.amount, language);
  return t.between(money(link.minAmount!, language), money(link.maxAmount!, language));
}

/** The links, newest first, as a table that turns into cards on a phone. */
export function linksListHtml(
  links: readonly PaymentLinkView[],
  pages: PageLinks,
  language: Language,
  canCreate: boolean,
): string {
  const t = PaymentLinkPageMessages[language];
  const create = canCreate
    ? `<p class="actions"><a class="button" href="${DashboardPaths.paymentLinks}/new">${e(t.newLink)}</a></p>`
    : '';
  const intro = `<p class="muted">${e(t.intro)}</p>${create}`;
  if (links.length === 0 && !pages.previous) return `${intro}<p>${e(t.noLinks)}</p>`;
  const table = tableHtml<PaymentLinkView>(
    t.title,
    [
      { label: t.label, cell: (link) => `<a href="${e(linkPath(link.id))}">${e(link.label)}</a>` },
      { label: t.amount, cell: (link) => e(linkAmountText(link, language)), numeric: true },
      { label: t.state, cell: (link) => stateBadge(link, t) },
      { label: t.singleUse, cell: (link) => e(link.singleUse ? t.yes : t.no) },
      {
        label: t.expiresAt,
        cell: (link) => e(link.expiresAt ? dateTime(link.expiresAt, language) : t.never),
      },
      {
        label: t.paid,
        cell: (link) =>
          e(t.paidSummary(count(link.paidCount, language), money(link.paidAmount, language))),
      },
      { label: t.createdAt, cell: (link) => e(dateTime(link.createdAt, language)) },
    ],
    links,
  );
  const href = (fields: Record<string, string>) =>
    `${DashboardPaths.paymentLinks}${queryString(fields)}`;
  const nav =
    pages.next || pages.previous
      ? `<nav class="actions" aria-label="${e(t.pagination)}">${
          pages.previous
            ? `<a rel="prev" href="${e(href(pages.previous))}">${e(t.previous)}</a>`
            : ''
        } ${pages.next ? `<a rel="next" href="${e(href(pages.next))}">${e(t.next)}</a>` : ''}</nav>`
      : '';
  return `${intro}${table}\n${nav}`;
}

/** One link: its address and QR image, what it asks, what was paid, and its payments. */
export function linkHtml(
  link: PaymentLinkView,
  payments: readonly PaymentListItem[] | null,
  language: Language,
  canDeactivate: boolean,
): string {
  const t = PaymentLinkPageMessages[language];
  const image = `${linkPath(link.id)}/image`;
  const rows: [string, string][] = [
    [t.url, `<a href="${e(link.url)}" dir="ltr"><code>${e(link.url)}</code></a>`],
    [t.state, stateBadge(link, t)],
    [t.amount, e(linkAmountText(link, language))],
    [t.singleUse, e(link.singleUse ? t.yes : t.no)],
    [t.expiresAt, e(link.expiresAt ? dateTime(link.expiresAt, language) : t.never)],
    [t.language, e(t.languages[link.language])],
    [t.paid, e(t.paidSummary(count(link.paidCount, language), money(link.paidAmount, language)))],
    [t.createdAt, e(dateTime(link.createdAt, language))],
  ];
  if (link.deactivatedAt) rows.push([t.deactivatedAt, e(dateTime(link.deactivatedAt, language))]);
  if (link.metadata) {
    rows.push([
      t.metadata,
      `<pre dir="ltr"><code>${e(JSON.stringify(link.metadata, null, 2))}</code></pre>`,
    ]);
  }
  const deactivate =
    canDeactivate && link.state !== 'deactivated'
      ? `<p class="actions"><a class="button secondary" href="${e(linkPath(link.id))}/deactivate">${e(t.deactivate)}</a></p>`
      : '';
  return `<p><a href="${DashboardPaths.paymentLinks}">${e(t.backToLinks)}</a></p>
<section class="card"><dl class="fields">${rows.map(([label, value]) => `<dt>${e(label)}</dt><dd>${value}</dd>`).join('')}</dl>${deactivate}</section>
<section class="card" aria-labelledby="image"><h2 id="image">${e(t.image)}</h2>
<img class="qr" src="${e(image)}?format=svg" alt="${e(t.imageAlt(link.url))}" width="224" height="224">
<div class="actions"><a class="button secondary" href="${e(image)}?format=svg&amp;download=1" download>${e(t.downloadSvg)}</a>
<a class="button secondary" href="${e(image)}?format=png&amp;download=1" download>${e(t.downloadPng)}</a></div></section>
${payments === null ? '' : linkPaymentsHtml(payments, language)}`;
}

function linkPaymentsHtml(payments: readonly PaymentListItem[], language: Language): string {
  const t = PaymentLinkPageMessages[language];
  const p = PaymentsMessages[language];
  const body =
    payments.length === 0
      ? `<p>${e(t.noPayments)}</p>`
      : tableHtml<PaymentListItem>(
          t.payments,
          [
            {
              label: t.reference,
              cell: (payment) =>
                `<a href="${e(`${DashboardPaths.payments}/${encodeURIComponent(payment.id)}`)}"><bdi>${e(payment.reference)}</bdi></a>`,
            },
            {
              label: t.status,
              cell: (payment) => `<span class="badge">${e(statusLabel(payment, p))}</span>`,
            },
            { label: t.total, cell: (payment) => e(money(payment.total, language)), numeric: true },
            { label: t.when, cell: (payment) => e(dateTime(payment.createdAt, language)) },
          ],
          payments,
        );
  return `<section class="card" aria-labelledby="payments"><h2 id="payments">${e(t.payments)}</h2>${body}</section>`;
}

/** The form of a new link, with what was typed and why it was refused, if it was. */
export function newLinkHtml(
  values: PaymentLinkFormValues,
  problems: readonly string[],
  csrfField: string,
  language: Language,
): string {
  const t = PaymentLinkPageMessages[language];
  const alert =
    problems.length > 0
      ? `<div class="flash error" role="alert"><p>${e(t.problems)}</p><ul>${problems.map((problem) => `<li>${e(problem)}</li>`).join('')}</ul></div>`
      : '';
  const radio = (kind: 'fixed' | 'open', label: string) =>
    `<label class="check"><input type="radio" name="kind" value="${kind}"${values.kind === kind ? ' checked' : ''}> ${e(label)}</label>`;
  const amountBox = (name: string, label: string, value: string) =>
    `<div><label for="link-${name}">${e(label)}</label>
<input id="link-${name}" name="${name}" type="text" inputmode="decimal" dir="ltr" autocomplete="off" value="${e(value)}" aria-describedby="link-amount-hint"></div>`;
  const languages = (['ar', 'fr', 'en'] as const)
    .map(
      (code) =>
        `<option value="${code}"${values.language === code ? ' selected' : ''}>${e(t.languages[code])}</option>`,
    )
    .join('');
  return `<p><a href="${DashboardPaths.paymentLinks}">${e(t.backToLinks)}</a></p>
${alert}<section class="card"><form method="post" action="${DashboardPaths.paymentLinks}" class="stack">${csrfField}
<div><label for="link-label">${e(t.label)}</label>
<input id="link-label" name="label" type="text" required maxlength="200" dir="auto" value="${e(values.label)}" aria-describedby="link-label-hint">
<p id="link-label-hint" class="muted">${e(t.labelHint)}</p></div>
<fieldset><legend>${e(t.amountKind)}</legend>
${radio('fixed', t.fixed)}
${amountBox('amount', t.fixedLabel, values.amount)}
${radio('open', t.open)}
${amountBox('minAmount', t.minLabel, values.minAmount)}
${amountBox('maxAmount', t.maxLabel, values.maxAmount)}
<p id="link-amount-hint" class="muted">${e(t.amountHint)}</p></fieldset>
<label class="check"><input type="checkbox" name="singleUse" value="on"${values.singleUse ? ' checked' : ''}> ${e(t.singleUseLabel)}</label>
<div><label for="link-expires">${e(t.expiresLabel)}</label>
<input id="link-expires" name="expiresAt" type="datetime-local" value="${e(values.expiresAt)}"></div>
<div><label for="link-language">${e(t.language)}</label>
<select id="link-language" name="language">${languages}</select></div>
<div><label for="link-metadata">${e(t.metadataLabel)}</label>
<textarea id="link-metadata" name="metadata" rows="3" dir="ltr" aria-describedby="link-metadata-hint">${e(values.metadata)}</textarea>
<p id="link-metadata-hint" class="muted">${e(t.metadataHint)}</p></div>
<div class="actions"><button type="submit">${e(t.create)}</button></div>
</form></section>`;
}

/** The confirmation a deactivation needs: its form alone deactivates. */
export function deactivateHtml(
  link: PaymentLinkView,
  csrfField: string,
  language: Language,
): string {
  const t = PaymentLinkPageMessages[language];
  return `<section class="card"><dl class="fields"><dt>${e(t.label)}</dt><dd>${e(link.label)}</dd>
<dt>${e(t.url)}</dt><dd><code dir="ltr">${e(link.url)}</code></dd>
<dt>${e(t.amount)}</dt><dd>${e(linkAmountText(link, language))}</dd></dl>
<p>${e(t.deactivateWarning)}</p>
<form class="actions" method="post" action="${e(linkPath(link.id))}/deactivate">${csrfField}
<button type="submit" class="danger">${e(t.confirmDeactivate)}</button>
<a class="button secondary" href="${e(linkPath(link.id))}">${e(t.cancel)}</a></form></section>`;
}
