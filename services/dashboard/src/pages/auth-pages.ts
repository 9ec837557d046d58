import { createHash } from 'node:crypto';
import type { Language } from '@dzpay/contracts';
import { escapeHtml } from '@dzpay/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { newToken } from '../csrf.ts';
import { checkFormToken, endFormToken, formToken } from '../form-guard.ts';
import { chooseLanguage } from '../language.ts';
import { flashHtml, publicPage } from '../layout.ts';
import { textsOf, type DashboardText } from '../messages.ts';
import { DashboardPaths, safeReturnPath } from '../navigation.ts';
import { hashPassword, passwordProblem, verifyPassword } from '@dzpay/accounts';
import {
  DashboardUnavailable,
  deviceCookieOf,
  resolveSession,
  setDeviceCookie,
  setSessionCookie,
} from '../session-guard.ts';
import type { DashboardDeps } from '../settings.ts';

type Form = Record<string, unknown>;
type Notice = { kind: 'ok' | 'error'; text: string } | undefined;

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function inviteTokenHash(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

function requestLanguage(request: FastifyRequest, choice?: unknown): Language {
  const query = request.query as { lang?: unknown } | undefined;
  return chooseLanguage(choice ?? query?.lang, request.headers['accept-language']);
}

function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
}

function sendHtml(reply: FastifyReply, status: number, html: string) {
  return reply.code(status).type('text/html; charset=utf-8').send(html);
}

function loginForm(options: {
  t: DashboardText;
  language: Language;
  csrf: string;
  next: string;
  email?: string;
  notice?: Notice;
}): string {
  const { t } = options;
  return `${flashHtml(options.notice)}
<form class="stack" method="post" action="${DashboardPaths.login}">
${hidden('_csrf', options.csrf)}${hidden('lang', options.language)}${hidden('next', options.next)}
<div><label for="email">${escapeHtml(t.email)}</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${escapeHtml(options.email ?? '')}"></div>
<div><label for="password">${escapeHtml(t.password)}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="800"></div>
<button type="submit">${escapeHtml(t.signIn)}</button>
</form>
<p class="forgot"><a href="${DashboardPaths.passwordReset}?lang=${options.language}">${escapeHtml(t.forgotPassword)}</a></p>`;
}

/** Sign-in and the invitation links: the pages reachable without a session. */
export function authPages(scope: FastifyInstance, dash: DashboardDeps): void {
  scope.get('/login', async (request, reply) => {
    const query = request.query as { next?: unknown; ended?: unknown; joined?: unknown };
    if (await resolveSession(request, dash)) {
      return reply.redirect(safeReturnPath(query.next), 303);
    }
    const language = requestLanguage(request);
    const t = textsOf(language);
    const notice: Notice =
      query.ended === 'everywhere'
        ? { kind: 'ok', text: t.loggedOutEverywhere }
        : query.joined === '1'
          ? { kind: 'ok', text: t.accountCreated }
          : undefined;
    const next = safeReturnPath(query.next);
    const csrf = await formToken(request, reply, dash);
    const body = loginForm({ t, language, csrf, next, notice });
    const path = `${DashboardPaths.login}${next === DashboardPaths.home ? '' : `?next=${encodeURIComponent(next)}`}`;
    return sendHtml(reply, 200, publicPage({ language, title: t.signIn, body, path }));
  });

  scope.post('/login', async (request, reply) => {
    const body = (request.body ?? {}) as Form;
    const language = requestLanguage(request, body.lang);
    const t = textsOf(language);
    const next = safeReturnPath(body.next);
    const email = typeof body.email === 'string' ? body.email.trim().slice(0, 254) : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const again = async (status: number, text: string) =>
      sendHtml(
        reply,
        status,
        publicPage({
          language,
          title: t.signIn,
          path: DashboardPaths.login,
          body: loginForm({
            t,
            language,
            csrf: await formToken(request, reply, dash),
            next,
            email,
            notice: { kind: 'error', text },
          }),
        }),
      );
    const form = await checkFormToken(request, dash);
    if (form === 'unavailable') return again(503, t.unavailable);
    if (form === 'refused') return again(403, t.formExpired);
    if (!email || !password) return again(400, t.wrongCredentials);

    // Without Redis the throttle cannot count: refuse rather than allow endless guesses.
    const device = deviceCookieOf(request, dash);
    let verdict;
    try {
      verdict = await dash.throttle.check(email, request.ip, device);
    } catch (error) {
      request.log.warn({ err: error }, 'sign-in throttle unavailable');
      return again(503, t.unavailable);
    }
    if (!verdict.allowed) {
      void reply.header('retry-after', String(verdict.retryAfterSeconds));
      return again(429, verdict.by === 'account' ? t.throttledAccount : t.throttledAddress);
    }

    const candidate = await dash.users.findForLogin(email);
    const passwordOk = await verifyPassword(candidate?.passwordHash ?? null, password);
    if (!candidate || !passwordOk || !candidate.usable) {
      try {
        await dash.throttle.recordFailure(email, request.ip, device);
      } catch (error) {
        request.log.warn({ err: error }, 'sign-in throttle unavailable');
        return again(503, t.unavailable);
      }
      return again(401, t.wrongCredentials);
    }

    try {
      setDeviceCookie(reply, dash, await dash.throttle.recordSuccess(email, request.ip, device));
      // Always a new session id at sign-in: a planted cookie never becomes a session.
      const id = await dash.sessions.create({
        userId: candidate.id,
        merchantId: candidate.merchantId,
        mode: 'test',
        language,
        csrfToken: newToken(),
        createdAt: Date.now(),
      });
      setSessionCookie(reply, dash, id);
    } catch (error) {
      throw new DashboardUnavailable(error);
    }
    await endFormToken(request, reply, dash);
    request.log.info(
      { userId: candidate.id, merchantId: candidate.merchantId },
      'dashboard sign-in',
    );
    return reply.redirect(next, 303);
  });

  scope.get<{ Params: { token: string } }>('/invite/:token', async (request, reply) => {
    const language = requestLanguage(request);
    const t = textsOf(language);
    const { token } = request.params;
    const invite = TOKEN.test(token) ? await dash.users.findInvite(inviteTokenHash(token)) : null;
    const path = `${DashboardPaths.invite}/${token}`;
    if (!invite?.usable) {
      const body = `<p role="alert">${escapeHtml(t.inviteInvalid)}</p>`;
      return sendHtml(reply, 404, publicPage({ language, title: t.acceptTitle, body, path }));
    }
    const body = acceptForm(t, language, await formToken(request, reply, dash), token, invite);
    return sendHtml(reply, 200, publicPage({ language, title: t.acceptTitle, body, path }));
  });

  scope.post<{ Params: { token: string } }>('/invite/:token', async (request, reply) => {
    const body = (request.body ?? {}) as Form;
    const language = requestLanguage(request, body.lang);
    const t = textsOf(language);
    const { token } = request.params;
    const path = `${DashboardPaths.invite}/${token}`;
    const invite = TOKEN.test(token) ? await dash.users.findInvite(inviteTokenHash(token)) : null;
    const page = (status: number, html: string) =>
      sendHtml(reply, status, publicPage({ language, title: t.acceptTitle, body: html, path }));
    if (!invite?.usable) return page(404, `<p role="alert">${escapeHtml(t.inviteInvalid)}</p>`);
    const form = await checkFormToken(request, dash);
    const refuse = async (status: number, text: string) => {
      const csrf = await formToken(request, reply, dash);
      return page(status, acceptForm(t, language, csrf, token, invite, { kind: 'error', text }));
    };
    if (form === 'unavailable') return refuse(503, t.serviceUnavailable);
    if (form === 'refused') return refuse(403, t.formExpired);
    const problem = passwordProblem(body.password);
    if (problem)
      return refuse(400, problem === 'tooShort' ? t.passwordTooShort : t.passwordTooLong);

    const created = await dash.users.acceptInvite(
      inviteTokenHash(token),
      await hashPassword(body.password as string),
    );
    if ('problem' in created) {
      if (created.problem === 'email-taken') return refuse(409, t.emailTaken);
      return page(404, `<p role="alert">${escapeHtml(t.inviteInvalid)}</p>`);
    }
    await endFormToken(request, reply, dash);
    request.log.info(
      { userId: created.user.id, merchantId: created.user.merchantId },
      'dashboard invitation accepted',
    );
    return reply.redirect(`${DashboardPaths.login}?joined=1&lang=${language}`, 303);
  });
}

function acceptForm(
  t: DashboardText,
  language: Language,
  csrf: string,
  token: string,
  invite: { email: string; merchantName: string },
  notice?: Notice,
): string {
  return `${flashHtml(notice)}
<p>${escapeHtml(t.acceptIntro)} <strong>${escapeHtml(invite.merchantName)}</strong>.</p>
<form class="stack" method="post" action="${DashboardPaths.invite}/${escapeHtml(token)}">
${hidden('_csrf', csrf)}${hidden('lang', language)}
<div><label for="email">${escapeHtml(t.email)}</label>
<input id="email" name="email" type="email" autocomplete="username" readonly value="${escapeHtml(invite.email)}"></div>
<div><label for="password">${escapeHtml(t.newPassword)}</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="12" maxlength="200"></div>
<button type="submit">${escapeHtml(t.createAccount)}</button>
</form>`;
}
