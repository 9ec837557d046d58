import { AuditFamilies, isDashboardRole, type AuditEvent, type AuditFamily } from '@dzpay/accounts';
import type { Language } from '@dzpay/contracts';
import { escapeHtml as e } from '@dzpay/platform';
import { AuditMessages, type AuditText } from './audit-messages.ts';
import { formatDateTime } from '../format.ts';
import { textsOf } from '../messages.ts';
import { DashboardPaths } from '../navigation.ts';
import { money } from './format.ts';
import type { PageLinks } from './pagination.ts';
import { tableHtml, type Column } from './table.ts';

/** What the activity page is drawn from. */
export interface AuditView {
  language: Language;
  family: AuditFamily | null;
  events: AuditEvent[];
  links: PageLinks;
}

const roleName = (value: unknown, language: Language) =>
  isDashboardRole(value) ? textsOf(language).roleNames[value] : String(value);

/** The few details worth a glance, in the page's language; the rest stays in the API. */
function detailsOf(event: AuditEvent, text: AuditText, language: Language): string {
  const d = event.details;
  const parts: string[] = [];
  if (typeof d.amount === 'number') parts.push(`${text.amount}: ${money(d.amount, language)}`);
  if (d.from !== undefined && d.to !== undefined) {
    parts.push(`${text.role}: ${roleName(d.from, language)} → ${roleName(d.to, language)}`);
  } else if (d.role !== undefined) parts.push(`${text.role}: ${roleName(d.role, language)}`);
  if (typeof d.label === 'string' && d.label) parts.push(`${text.label}: ${d.label}`);
  return parts.map((part) => e(part)).join('<br>');
}

function actorOf(event: AuditEvent, text: AuditText): string {
  const kind =
    event.actor.kind === 'user'
      ? ''
      : ` <span class="muted">(${e(text.actorKinds[event.actor.kind])})</span>`;
  return `<bdi>${e(event.actor.label)}</bdi>${kind}`;
}

function filterHtml(view: AuditView, text: AuditText): string {
  const options = [
    `<option value=""${view.family ? '' : ' selected'}>${e(text.allFamilies)}</option>`,
    ...AuditFamilies.map(
      (family) =>
        `<option value="${family}"${family === view.family ? ' selected' : ''}>${e(text.families[family])}</option>`,
    ),
  ].join('');
  return `<form class="filters actions" method="get" action="${DashboardPaths.audit}">
<div><label for="audit-family">${e(text.filter)}</label><select id="audit-family" name="family">${options}</select></div>
<div><button type="submit">${e(text.apply)}</button></div></form>`;
}

function paginationHtml(view: AuditView, text: AuditText): string {
  const { next, previous } = view.links;
  if (!next && !previous) return '';
  const href = (fields: Record<string, string>) => {
    const query = new URLSearchParams({
      ...(view.family ? { family: view.family } : {}),
      ...fields,
    });
    const rendered = query.toString();
    return `${DashboardPaths.audit}${rendered ? `?${rendered}` : ''}`;
  };
  const newer = previous ? `<a rel="prev" href="${e(href(previous))}">${e(text.newer)}</a>` : '';
  const older = next ? `<a rel="next" href="${e(href(next))}">${e(text.older)}</a>` : '';
  return `<nav class="pagination actions" aria-label="${e(text.pagination)}">${newer} ${older}</nav>`;
}

/** The activity page's body: the filter, the events newest first, the way to older ones. */
export function auditPageHtml(view: AuditView): string {
  const text = AuditMessages[view.language];
  const t = textsOf(view.language);
  const columns: Column<AuditEvent>[] = [
    {
      label: text.when,
      cell: (event) =>
        `<time datetime="${e(event.at.toISOString())}">${e(formatDateTime(event.at, view.language))}</time>`,
    },
    { label: text.who, cell: (event) => actorOf(event, text) },
    {
      label: text.what,
      cell: (event) =>
        `<span data-action="${e(event.action)}">${e(text.actions[event.action] ?? event.action)}</span>`,
    },
    {
      label: text.onWhat,
      cell: (event) => (event.target ? `<bdi><code>${e(event.target)}</code></bdi>` : ''),
    },
    {
      label: text.mode,
      // Team changes are of no mode.
      cell: (event) => (event.mode ? e(event.mode === 'live' ? t.modeLive : t.modeTest) : '—'),
    },
    { label: text.details, cell: (event) => detailsOf(event, text, view.language) },
  ];
  const table = view.events.length
    ? tableHtml(text.title, columns, view.events)
    : `<p class="empty">${e(text.empty)}</p>`;
  return `<p class="muted">${e(text.intro)}</p>
${filterHtml(view, text)}
<section class="card audit" aria-label="${e(text.title)}">${table}</section>
${paginationHtml(view, text)}`;
}
