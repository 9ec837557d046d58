import { cleanEmail, hashPassword, passwordProblem } from '@dzpay/accounts';
import type { Language } from '@dzpay/contracts';
import { escapeHtml } from '@dzpay/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkFormToken, endFormToken, formToken } from '../form-guard.ts';
import { chooseLanguage } from '../language.ts';
import { flashHtml, publicPage } from '../layout.ts';
import { textsOf } from '../messages.ts';
import { DashboardPaths } from '../navigation.ts';
import { resetTextsOf, type PasswordResetText } from './password-reset-messages.ts';
import { minutesToWait } from '../password-reset-throttle.ts';
import {
  isResetToken,
  resetLinkState,
  resetTokenHash,
  type ResetLinkState,
} from './password-reset-token.ts';
import { DashboardUnavailable } from '../session-guard.ts';
import type { DashboardDeps } from '../settings.ts';

type Form = Record<string, unknown>;
type Notice = { kind: 'ok' | 'error'; text: string } | undefined;

/** The routes' paths inside the plugin's /dashboard prefix. */
const ASK = DashboardPaths.passwordReset.slice(DashboardPaths.home.length);

function requestLanguage(request: FastifyRequest, choice?: unknown): Language {
  const query = request.query as { lang?: unknown } | undefined;
  return chooseLanguage(choice ?? query?.lang, request.headers['accept-language']);
}

function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
}

function sendPage(
  reply: FastifyReply,
  status: number,
  page: { language: Language; title: string; body: string; path: string },
) {
  return reply.code(status).type('text/html; charset=utf-8').send(publicPage(page));
}

function links(language: Language, items: [href: string, text: string][]): string {
  return `<p>${items
    .map(
      ([href, text]) =>
        `<a href="${escapeHtml(`${href}?lang=${language}`)}">${escapeHtml(text)}</a>`,
    )
    .join(' · ')}</p>`;
}

function askForm(options: {
  r: PasswordResetText;
  language: Language;
  csrf: string;
  minutes: number;
  email?: string;
  notice?: Notice;
}): string {
  const { r, language } = options;
  return `${flashHtml(options.notice)}
<p>${escapeHtml(r.askIntro(options.minutes))}</p>
<form class="stack" method="post" action="${DashboardPaths.passwordReset}">
${hidden('_csrf', options.csrf)}${hidden('lang', language)}
<div><label for="email">${escapeHtml(r.email)}</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${escapeHtml(options.email ?? '')}"></div>
<button type="submit">${escapeHtml(r.sendLink)}</button>
</form>
${links(language, [[DashboardPaths.login, r.backToSignIn]])}`;
}

function chooseForm(options: {
  r: PasswordResetText;
  language: Language;
  csrf: string;
  token: string;
  email: string;
  notice?: Notice;
}): string {
  const { r } = options;
  return `${flashHtml(options.notice)}
<p>${escapeHtml(r.chooseIntro)}</p>
<form class="stack" method="post" action="${DashboardPaths.passwordReset}/${escapeHtml(options.token)}">
${hidden('_csrf', options.csrf)}${hidden('lang', options.language)}
<div><label for="email">${escapeHtml(r.email)}</label>
<input id="email" name="email" type="email" autocomplete="username" readonly value="${escapeHtml(options.email)}"></div>
<div><label for="password">${escapeHtml(r.newPassword)}</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="12" maxlength="200"></div>
<button type="submit">${escapeHtml(r.setPassword)}</button>
</form>`;
}

/** Why a link shows no form, said so that the next step is plain: ask for another. */
function deadLink(
  r: PasswordResetText,
  language: Language,
  state: ResetLinkState,
  minutes: number,
) {
  const text =
    state === 'expired' ? r.linkExpired(minutes) : state === 'used' ? r.linkUsed : r.linkUnknown;
  return `<p role="alert">${escapeHtml(text)}</p>
${links(language, [
  [DashboardPaths.passwordReset, r.askAgain],
  [DashboardPaths.login, r.backToSignIn],
])}`;
}

/** A forgotten password: asking for a link by email, and the link's page (no session). */
export function passwordResetPages(app: FastifyInstance, dash: DashboardDeps): void {
  const { resets, throttle, mailing } = dash.passwordReset;
  const now = () => dash.clock?.() ?? new Date();

  app.get(ASK, async (request, reply) => {
    const language = requestLanguage(request);
    const r = resetTextsOf(language);
    const csrf = await formToken(request, reply, dash);
    const body = askForm({ r, language, csrf, minutes: mailing.minutes });
    return sendPage(reply, 200, {
      language,
      title: r.askTitle,
      body,
      path: DashboardPaths.passwordReset,
    });
  });

  app.post(ASK, async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    const language = requestLanguage(request, form.lang);
    const r = resetTextsOf(language);
    const typed = typeof form.email === 'string' ? form.email.trim().slice(0, 254) : '';
    const again = async (status: number, text: string) =>
      sendPage(reply, status, {
        language,
        title: r.askTitle,
        path: DashboardPaths.passwordReset,
        body: askForm({
          r,
          language,
          csrf: await formToken(request, reply, dash),
          minutes: mailing.minutes,
          email: typed,
          notice: { kind: 'error', text },
        }),
      });

    const checked = await checkFormToken(request, dash);
    if (checked === 'unavailable') return again(503, r.unavailable);
    if (checked === 'refused') return again(403, r.formExpired);
    const email = cleanEmail(typed);
    if (!email) return again(400, r.emailInvalid);

    // Without Redis nothing can count the asks: refuse rather than mail without limit.
    let verdict;
    try {
      verdict = await throttle.ask(email, request.ip);
    } catch (error) {
      request.log.warn({ err: error }, 'password reset throttle unavailable');
      return again(503, r.unavailable);
    }
    if (!verdict.allowed) {
      void reply.header('retry-after', String(verdict.retryAfterSeconds));
      const minutes = minutesToWait(verdict.retryAfterSeconds);
      return again(
        429,
        verdict.by === 'email' ? r.throttledEmail(minutes) : r.throttledAddress(minutes),
      );
    }

    // The one lookup every ask makes, whoever the email is; what differs (storing a
    // link, the mail server) happens after the answer, so neither the page nor its time
    // tells an account from no account, a disabled one or an inactive merchant's.
    let user;
    try {
      user = await resets.findByEmail(email);
    } catch (error) {
      request.log.warn({ err: error }, 'password reset lookup failed');
      return again(503, r.unavailable);
    }
    if (user?.usable) mailing.start(user, language, request.log);

    await endFormToken(request, reply, dash);
    const body = `<p role="status">${escapeHtml(r.sent(mailing.minutes))}</p>
<p class="muted">${escapeHtml(r.sentHint)}</p>
${links(language, [[DashboardPaths.login, r.backToSignIn]])}`;
    return sendPage(reply, 200, {
      language,
      title: r.sentTitle,
      body,
      path: DashboardPaths.passwordReset,
    });
  });

  /** The stored link behind a token, and where it stands now. */
  async function linkOf(token: string) {
    if (!isResetToken(token)) return { state: 'unknown' as const, link: null };
    const link = await resets.find(resetTokenHash(token)).catch((error: unknown) => {
      throw new DashboardUnavailable(error);
    });
    return { state: resetLinkState(link, now()), link };
  }

  app.get<{ Params: { token: string } }>(`${ASK}/:token`, async (request, reply) => {
    const language = requestLanguage(request);
    const r = resetTextsOf(language);
    const { token } = request.params;
    const path = `${DashboardPaths.passwordReset}/${token}`;
    const { state, link } = await linkOf(token);
    if (state !== 'usable' || !link) {
      const body = deadLink(r, language, state, mailing.minutes);
      return sendPage(reply, 404, { language, title: r.chooseTitle, body, path });
    }
    const csrf = await formToken(request, reply, dash);
    const body = chooseForm({ r, language, csrf, token, email: link.email });
    return sendPage(reply, 200, { language, title: r.chooseTitle, body, path });
  });

  app.post<{ Params: { token: string } }>(`${ASK}/:token`, async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    const language = requestLanguage(request, form.lang);
    const r = resetTextsOf(language);
    const { token } = request.params;
    const path = `${DashboardPaths.passwordReset}/${token}`;
    const page = (status: number, title: string, body: string) =>
      sendPage(reply, status, { language, title, body, path });
    const dead = (state: ResetLinkState) =>
      page(404, r.chooseTitle, deadLink(r, language, state, mailing.minutes));

    const { state, link } = await linkOf(token);
    if (state !== 'usable' || !link) return dead(state);
    const refuse = async (status: number, text: string) => {
      const csrf = await formToken(request, reply, dash);
      const notice = { kind: 'error' as const, text };
      return page(
        status,
        r.chooseTitle,
        chooseForm({ r, language, csrf, token, email: link.email, notice }),
      );
    };
    const checked = await checkFormToken(request, dash);
    if (checked === 'unavailable') return refuse(503, r.unavailable);
    if (checked === 'refused') return refuse(403, r.formExpired);
    // The invitation's rules (libs/accounts passwordProblem), in the same words.
    const problem = passwordProblem(form.password);
    if (problem) {
      const t = textsOf(language);
      return refuse(400, problem === 'tooShort' ? t.passwordTooShort : t.passwordTooLong);
    }

    const done = await resets
      .usePasswordReset(resetTokenHash(token), await hashPassword(form.password as string), now())
      .catch((error: unknown) => {
        throw new DashboardUnavailable(error);
      });
    // Used or expired meanwhile (another tab, the clock): nothing was changed.
    if (!done) return dead((await linkOf(token)).state);

    // Whoever had the old password may be signed in: every session of the user ends.
    // The password is changed already; a session that outlived it would be the one
    // thing the reset was for, so a failure here is an error page, not a success.
    let sessionsEnded;
    try {
      sessionsEnded = await dash.sessions.destroyAllOf(done.userId);
    } catch (error) {
      request.log.error({ err: error, userId: done.userId }, 'password reset: sessions not ended');
      throw new DashboardUnavailable(error);
    }
    // The reset proves the mailbox: the sign-in failures counted for it are forgiven.
    await dash.throttle.forgive(done.email, request.ip).catch((error: unknown) => {
      request.log.warn({ err: error }, 'sign-in throttle unavailable');
    });
    // The change is made and the sessions ended: a lost audit row is an operator's
    // problem (logged as an error), not a reason to tell the user it failed.
    await dash.accounts
      .recordAudit({
        merchantId: done.merchantId,
        actor: { kind: 'user', id: done.userId, label: done.email },
        action: 'team.password_reset',
        target: done.email,
        details: { sessionsEnded, otherLinksEnded: done.otherLinksEnded },
      })
      .catch((error: unknown) => {
        request.log.error({ err: error, userId: done.userId }, 'password reset not audited');
      });
    await endFormToken(request, reply, dash);
    request.log.info(
      { userId: done.userId, merchantId: done.merchantId, sessionsEnded },
      'dashboard password reset',
    );
    const body = `<p role="status">${escapeHtml(r.done)}</p>
${links(language, [[DashboardPaths.login, r.signIn]])}`;
    return page(200, r.doneTitle, body);
  });
}
