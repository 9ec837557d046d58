import { escapeHtml } from '@dzpay/platform';
import { issueApiKey, mayHoldKey, type ListedApiKey } from '@dzpay/accounts';
import { hasBidiControl } from '@dzpay/contracts';
import { recordDashboardAudit } from './audit-record.ts';
import { formatDateTime } from '../format.ts';
import { textsOf } from '../messages.ts';
import { DashboardPaths } from '../navigation.ts';
import type { PageContext, PageKit } from '../page-kit.ts';
import type { DashboardDeps } from '../settings.ts';
import { problem } from '../problem-pages.ts';

type Form = Record<string, unknown>;
const LABEL_MAX = 100;

/**
 * The merchant's API keys of the mode shown: list, issue (the key is shown once, in
 * the answer to the form, and never stored), revoke after a confirmation page. A key
 * acts for the merchant across the API of its mode, so a role issues and revokes only
 * the keys it may hold (mayHoldKey: live keys for owners and admins); each key names
 * who issued it, and goes when its issuer is disabled or demoted below it.
 */
export function apiKeyPages(kit: PageKit, dash: DashboardDeps): void {
  const mayManage = (context: PageContext, mode = context.scope.mode) =>
    mayHoldKey(context.session.role ?? 'accountant', mode);
  /** Refused for the role: 403 in the layout, naming the role and who may. */
  const refused = (context: PageContext) => {
    const t = textsOf(context.language);
    const role = t.roleNames[context.session.role ?? 'accountant'];
    return problem(context.request, context.reply, 403, t.keyModeRefused(role), t.forbiddenTitle);
  };
  const render = async (context: PageContext, top = '') => {
    const { escape: e, scope } = context;
    const t = textsOf(context.language);
    const [keys, uses] = await Promise.all([
      dash.accounts.listKeysOf(scope.merchantId, scope.mode),
      dash.accounts.lastUsesOf(scope.merchantId),
    ]);
    const manages = mayManage(context);
    const rows = keys
      .map((key) => keyRow(key, uses.get(key.id) ?? null, context, manages))
      .join('');
    const table = keys.length
      ? `<div class="table-wrap"><table class="responsive"><thead><tr>
<th scope="col">${e(t.prefix)}</th><th scope="col">${e(t.label)}</th><th scope="col">${e(t.issuedBy)}</th><th scope="col">${e(t.created)}</th>
<th scope="col">${e(t.lastUsed)}</th><th scope="col">${e(t.status)}</th><th scope="col">${e(t.actions)}</th></tr></thead><tbody>${rows}</tbody></table></div>`
      : `<p>${e(t.noKeys)}</p>`;
    const issue = manages
      ? `<form class="stack" method="post" action="${DashboardPaths.apiKeys}">${context.csrfField()}
<div><label for="key-label">${e(t.optionalLabel)}</label><input id="key-label" name="label" type="text" maxlength="${LABEL_MAX}" autocomplete="off"></div>
<div><button type="submit">${e(t.issueKey)}</button></div></form>`
      : `<p class="muted">${e(t.keyModeRefused(t.roleNames[context.session.role ?? 'accountant']))}</p>`;
    return context.page(
      t.keysTitle,
      `${top}<section class="card" aria-labelledby="keys"><h2 id="keys">${e(t.keysTitle)} · ${e(
        scope.mode === 'live' ? t.modeLive : t.modeTest,
      )}</h2><p class="muted">${e(t.keysIntro)}</p>${table}</section>
<section class="card" aria-labelledby="issue"><h2 id="issue">${e(t.issueKey)}</h2>
<p class="muted">${e(t.keyPowers)}</p>${issue}</section>`,
    );
  };

  kit.get(DashboardPaths.apiKeys, (context) => render(context));

  kit.post(DashboardPaths.apiKeys, async (context) => {
    const { escape: e, scope } = context;
    const t = textsOf(context.language);
    const raw = (context.request.body as Form).label;
    const label = typeof raw === 'string' ? raw.trim() : '';
    // Shown on this page and in the activity log: nothing in it may reorder what is read.
    const problem =
      [...label].length > LABEL_MAX ? t.labelTooLong : hasBidiControl(label) ? t.labelBidi : null;
    if (problem !== null) {
      context.reply.code(400);
      return render(context, `<p class="flash error" role="alert">${e(problem)}</p>`);
    }
    if (!mayManage(context)) return refused(context);
    const issued = issueApiKey(scope.mode);
    // Judged again as the user is at this instant (a demotion a moment ago refuses it).
    const stored = await dash.accounts.insertKeyIssuedBy(
      {
        merchantId: scope.merchantId,
        mode: issued.mode,
        hash: issued.hash,
        displayPrefix: issued.displayPrefix,
        label: label || null,
      },
      context.session.userId,
    );
    if (!stored) return refused(context);
    context.request.log.info(
      { merchantId: scope.merchantId, keyId: stored.id, mode: scope.mode },
      'API key issued from the dashboard',
    );
    await recordDashboardAudit(dash, context, {
      action: 'api_key.issue',
      target: stored.displayPrefix,
      details: { keyId: stored.id, ...(stored.label ? { label: stored.label } : {}) },
    });
    return context.page(
      t.newKeyTitle,
      `<section class="card"><p role="status"><strong>${e(t.newKeyWarning)}</strong></p>
<code class="secret" id="new-key">${e(issued.key)}</code>
<p><a class="button secondary" href="${DashboardPaths.apiKeys}">${e(t.backToKeys)}</a></p></section>`,
    );
  });

  kit.get(`${DashboardPaths.apiKeys}/:id/revoke`, async (context) => {
    const { escape: e, scope } = context;
    const t = textsOf(context.language);
    const { id } = context.request.params as { id: string };
    const key = await dash.accounts.findKeyOf(scope.merchantId, scope.mode, id);
    if (!key || key.revokedAt) return notFound(context);
    if (!mayManage(context)) return refused(context);
    return context.page(
      t.revokeTitle,
      `<section class="card"><dl class="fields"><dt>${e(t.prefix)}</dt><dd><code>${e(key.displayPrefix)}</code></dd>
<dt>${e(t.label)}</dt><dd>${e(key.label ?? '')}</dd></dl>
<p>${e(t.revokeWarning)}</p>
<form class="actions" method="post" action="${DashboardPaths.apiKeys}/${e(key.id)}/revoke">${context.csrfField()}
<button type="submit" class="danger">${e(t.confirmRevoke)}</button>
<a class="button secondary" href="${DashboardPaths.apiKeys}">${e(t.cancel)}</a></form></section>`,
    );
  });

  kit.post(`${DashboardPaths.apiKeys}/:id/revoke`, async (context) => {
    const { scope } = context;
    const t = textsOf(context.language);
    const { id } = context.request.params as { id: string };
    if (!mayManage(context)) return refused(context);
    const revoked = await dash.accounts.revokeKeyOf(scope.merchantId, scope.mode, id);
    if (!revoked) return notFound(context);
    context.request.log.info(
      { merchantId: scope.merchantId, keyId: revoked.id, mode: scope.mode },
      'API key revoked from the dashboard',
    );
    await recordDashboardAudit(dash, context, {
      action: 'api_key.revoke',
      target: revoked.displayPrefix,
      details: { keyId: revoked.id, ...(revoked.label ? { label: revoked.label } : {}) },
    });
    await context.flash('ok', t.keyRevoked);
    await context.reply.redirect(DashboardPaths.apiKeys, 303);
  });
}

function keyRow(
  key: ListedApiKey,
  lastUsed: Date | null,
  context: PageContext,
  manages: boolean,
): string {
  const e = escapeHtml;
  const t = textsOf(context.language);
  const status = key.revokedAt
    ? `<span class="badge bad">${e(t.revoked)} ${e(formatDateTime(key.revokedAt, context.language))}</span>`
    : `<span class="badge ok">${e(t.active)}</span>`;
  const issuer = key.issuerEmail ?? (key.issuedBy === null ? t.issuedByOperator : '');
  const action =
    key.revokedAt || !manages
      ? ''
      : `<a href="${DashboardPaths.apiKeys}/${e(key.id)}/revoke">${e(t.revoke)}<span class="sr-only"> ${e(
          key.displayPrefix,
        )}</span></a>`;
  return `<tr><td data-label="${e(t.prefix)}"><code>${e(key.displayPrefix)}</code></td>
<td data-label="${e(t.label)}">${e(key.label ?? '')}</td>
<td data-label="${e(t.issuedBy)}">${e(issuer)}</td>
<td data-label="${e(t.created)}">${e(formatDateTime(key.createdAt, context.language))}</td>
<td data-label="${e(t.lastUsed)}">${e(lastUsed ? formatDateTime(lastUsed, context.language) : t.neverUsed)}</td>
<td data-label="${e(t.status)}">${status}</td><td data-label="${e(t.actions)}">${action}</td></tr>`;
}

/** Another merchant's key, another mode's, or none: the same 404 page. */
async function notFound(context: PageContext): Promise<void> {
  const t = textsOf(context.language);
  await problem(context.request, context.reply, 404, t.notFoundText);
}
