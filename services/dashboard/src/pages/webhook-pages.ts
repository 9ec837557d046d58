import { DeliveriesMessages } from './webhook-deliveries-messages.ts';
import { DEFAULT_WEBHOOK_EVENTS, WebhookEventKind, type WebhookTestResult } from '@dzpay/contracts';
import { apiUrlProblem, isAppError } from '@dzpay/platform';
import { DEFAULT_GRACE_HOURS, effectiveWebhookUrl, webhookSettings } from '@dzpay/accounts';
import { recordDashboardAudit, safeUrlOf } from './audit-record.ts';
import { formatDateTime } from '../format.ts';
import { textsOf } from '../messages.ts';
import { DashboardPaths } from '../navigation.ts';
import type { PageContext, PageKit } from '../page-kit.ts';
import type { DashboardDeps } from '../settings.ts';

type Form = Record<string, unknown>;

/**
 * Webhook settings of the mode shown: where they go and which events, the signing
 * secret (made on the first save, rotated here; shown once each time), and a test
 * event sent by the dispatcher while the user waits. The same repository calls as the
 * merchant API (services/gateway/src/routes/webhooks/routes.ts), scoped by the session.
 */
export function webhookPages(kit: PageKit, dash: DashboardDeps): void {
  const { deps } = kit;
  const render = async (context: PageContext, top = '', status = 200) => {
    const { escape: e, scope } = context;
    const t = textsOf(context.language);
    const row = await deps.accounts.findWebhookSettings(scope.merchantId, scope.mode);
    const url = row ? effectiveWebhookUrl(row) : null;
    const chosen = new Set<string>(row?.webhookEvents ?? DEFAULT_WEBHOOK_EVENTS);
    const boxes = WebhookEventKind.options
      .map(
        (kind) =>
          `<label class="check" for="event-${kind}"><input type="checkbox" id="event-${kind}" name="events" value="${kind}"${
            chosen.has(kind) ? ' checked' : ''
          }> <code>${kind}</code></label>`,
      )
      .join('');
    const date = (value: Date) => e(formatDateTime(value, context.language));
    const secretFacts = row?.signingSecretCreatedAt
      ? `<dt>${e(t.secretCreated)}</dt><dd>${date(row.signingSecretCreatedAt)}</dd>${
          row.previousValidUntil && row.previousValidUntil > new Date()
            ? `<dt>${e(t.previousValidUntil)}</dt><dd>${date(row.previousValidUntil)}</dd>`
            : ''
        }`
      : `<dt>${e(t.secretCreated)}</dt><dd>${e(t.noSecret)}</dd>`;
    context.reply.code(status);
    return context.page(
      t.webhooksTitle,
      `${top}<section class="card" aria-labelledby="wh-settings"><h2 id="wh-settings">${e(
        t.webhooksTitle,
      )} · ${e(scope.mode === 'live' ? t.modeLive : t.modeTest)}</h2>
<dl class="fields"><dt>${e(t.webhookUrlNow)}</dt><dd>${url ? `<code id="webhook-url-now">${e(url)}</code>` : e(t.nowhere)}</dd>${secretFacts}</dl>
<form class="stack" method="post" action="${DashboardPaths.webhooks}">${context.csrfField()}
<div><label for="webhook-url">${e(t.webhookUrl)}</label>
<input id="webhook-url" name="url" type="url" maxlength="2048" aria-describedby="webhook-url-help" value="${e(row?.webhookUrl ?? '')}">
<p class="muted" id="webhook-url-help">${e(t.webhookUrlHelp)}</p></div>
<fieldset><legend>${e(t.webhookEvents)}</legend>${boxes}</fieldset>
<div><button type="submit">${e(t.save)}</button></div></form></section>
<section class="card" aria-labelledby="wh-secret"><h2 id="wh-secret">${e(t.rotateSecret)}</h2>
<p class="muted">${e(t.rotateHelp)}</p>
<form method="post" action="${DashboardPaths.webhooks}/rotate">${context.csrfField()}
<button type="submit" class="secondary">${e(t.rotateSecret)}</button></form></section>
<section class="card" aria-labelledby="wh-test"><h2 id="wh-test">${e(t.sendTest)}</h2>
<form method="post" action="${DashboardPaths.webhooks}/test">${context.csrfField()}
<button type="submit" class="secondary">${e(t.sendTest)}</button></form></section>
<p><a href="${DashboardPaths.webhookDeliveries}">${e(DeliveriesMessages[context.language].title)}</a></p>`,
    );
  };

  const error = (context: PageContext, text: string, status = 400) =>
    render(context, `<p class="flash error" role="alert">${context.escape(text)}</p>`, status);
  const settings = webhookSettings(deps);

  /** The refusals of the shared webhook settings code, as this page says them. */
  const refused = (context: PageContext, failure: unknown) => {
    const t = textsOf(context.language);
    if (isAppError(failure) && failure.code === 'WEBHOOK409_ENDPOINT_MISSING')
      return error(context, t.endpointMissing, 409);
    if (isAppError(failure) && failure.code === 'SERVICE503_UNAVAILABLE')
      return error(context, t.secretsUnavailable, 503);
    throw failure;
  };

  const secretShown = (context: PageContext, secret: string) => {
    const e = context.escape;
    const t = textsOf(context.language);
    return `<section class="card" aria-labelledby="new-secret-title"><h2 id="new-secret-title">${e(
      t.newSecretTitle,
    )}</h2><p role="status"><strong>${e(t.secretWarning)}</strong></p>
<code class="secret" id="new-secret">${e(secret)}</code></section>`;
  };

  kit.get(DashboardPaths.webhooks, (context) => render(context));

  kit.post(DashboardPaths.webhooks, async (context) => {
    const { scope } = context;
    const t = textsOf(context.language);
    const body = context.request.body as Form;
    const rawUrl = typeof body.url === 'string' ? body.url.trim() : '';
    if (rawUrl.length > 2048) return error(context, `${t.urlInvalid}: ${t.badRequest}`);
    const urlProblem = rawUrl ? apiUrlProblem(rawUrl) : null;
    if (urlProblem) return error(context, `${t.urlInvalid} ${urlProblem}`);
    const picked = [body.events ?? []].flat();
    const events = WebhookEventKind.options.filter((kind) => picked.includes(kind));
    if (events.length === 0) return error(context, t.eventsRequired);
    let signingSecret: string | null;
    let unchanged: boolean;
    try {
      ({ signingSecret, unchanged } = await settings.save(scope, { url: rawUrl || null, events }));
    } catch (failure) {
      return refused(context, failure);
    }
    context.request.log.info(
      { merchantId: scope.merchantId, mode: scope.mode },
      'webhook settings saved from the dashboard',
    );
    // The same settings saved again changed nothing: the log keeps the save that did.
    if (!unchanged)
      await recordDashboardAudit(dash, context, {
        action: 'webhook.settings_update',
        ...(rawUrl ? { target: safeUrlOf(rawUrl) } : {}),
        details: { events, secretCreated: signingSecret !== null },
      });
    if (signingSecret) {
      return render(
        context,
        `<p class="flash ok" role="status">${context.escape(t.saved)}</p>${secretShown(context, signingSecret)}`,
      );
    }
    await context.flash('ok', t.saved);
    await context.reply.redirect(DashboardPaths.webhooks, 303);
  });

  kit.post(`${DashboardPaths.webhooks}/rotate`, async (context) => {
    const { scope } = context;
    let signingSecret: string;
    try {
      ({ signingSecret } = await settings.rotate(scope, DEFAULT_GRACE_HOURS));
    } catch (failure) {
      return refused(context, failure);
    }
    context.request.log.info(
      { merchantId: scope.merchantId, mode: scope.mode },
      'signing secret rotated from the dashboard',
    );
    await recordDashboardAudit(dash, context, {
      action: 'webhook.secret_rotate',
      details: { graceHours: DEFAULT_GRACE_HOURS },
    });
    return render(context, secretShown(context, signingSecret));
  });

  kit.post(`${DashboardPaths.webhooks}/test`, async (context) => {
    const { scope } = context;
    try {
      return await render(context, testResultHtml(context, await settings.sendTest(scope)));
    } catch (failure) {
      return refused(context, failure);
    }
  });
}

function testResultHtml(context: PageContext, result: WebhookTestResult): string {
  const e = context.escape;
  const t = textsOf(context.language);
  return `<section class="card" aria-labelledby="test-result"><h2 id="test-result">${e(t.testResult)}</h2>
<p class="flash ${result.ok ? 'ok' : 'error'}" role="status" id="test-outcome">${e(result.ok ? t.testOk : t.testFailed)}</p>
<dl class="fields"><dt>${e(t.webhookUrl)}</dt><dd><code>${e(result.url)}</code></dd>
<dt>${e(t.httpStatus)}</dt><dd>${e(result.statusCode === null ? '—' : String(result.statusCode))}</dd>
<dt>${e(t.latency)}</dt><dd>${e(String(result.latencyMs))}</dd>
${result.error ? `<dt>${e(t.errorLabel)}</dt><dd>${e(result.error)}</dd>` : ''}</dl></section>`;
}
