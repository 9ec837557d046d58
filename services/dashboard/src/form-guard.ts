import type { FastifyReply, FastifyRequest } from 'fastify';
import { FORM_TOKEN_SECONDS } from './adapters/form-tokens.ts';
import { dashboardCookies } from './cookies.ts';
import { fromAnotherSite, newToken } from './csrf.ts';
import { cookieOptions } from './session-guard.ts';
import type { DashboardDeps } from './settings.ts';

/** What the CSRF check of a form sent before any session says. */
export type FormCheck = 'ok' | 'refused' | 'unavailable';

function formCookieOf(request: FastifyRequest, dash: DashboardDeps): string | undefined {
  return request.cookies[dashboardCookies(dash.settings.cookieSecure).form];
}

/**
 * The CSRF token for a sign-in or invitation form: the one bound to the browser's form
 * cookie while it lasts, else a new pair (adapters/form-tokens.ts). The cookie is
 * HTTP-only and SameSite=Strict, and `__Host-` when Secure (cookies.ts).
 */
export async function formToken(
  request: FastifyRequest,
  reply: FastifyReply,
  dash: DashboardDeps,
): Promise<string> {
  const nonce = formCookieOf(request, dash);
  let issued;
  try {
    const token = nonce ? await dash.formTokens.current(nonce) : null;
    issued = token && nonce ? { nonce, token } : await dash.formTokens.issue();
  } catch (error) {
    // Without Redis no token can be kept: the form still shows, and sending it is answered
    // 503 (sign-in cannot count failures without Redis either).
    request.log.warn({ err: error }, 'form tokens unavailable');
    issued = { nonce: newToken(), token: newToken() };
  }
  void reply.setCookie(dashboardCookies(dash.settings.cookieSecure).form, issued.nonce, {
    ...cookieOptions(dash, FORM_TOKEN_SECONDS),
    sameSite: 'strict',
  });
  return issued.token;
}

/** Whether a form sent before any session carries a token this server issued, from its page. */
export async function checkFormToken(
  request: FastifyRequest,
  dash: DashboardDeps,
): Promise<FormCheck> {
  if (fromAnotherSite(request.headers['sec-fetch-site'])) return 'refused';
  const submitted = (request.body as Record<string, unknown> | undefined)?._csrf;
  try {
    return (await dash.formTokens.verify(formCookieOf(request, dash), submitted))
      ? 'ok'
      : 'refused';
  } catch (error) {
    request.log.warn({ err: error }, 'form tokens unavailable');
    return 'unavailable';
  }
}

/** After the form did its work: the token is spent and its cookie dropped. */
export async function endFormToken(
  request: FastifyRequest,
  reply: FastifyReply,
  dash: DashboardDeps,
): Promise<void> {
  const nonce = formCookieOf(request, dash);
  // Best effort: the work is done, and an unspent token expires within the hour anyway.
  if (nonce) {
    await dash.formTokens.consume(nonce).catch((error: unknown) => {
      request.log.warn({ err: error }, 'form tokens unavailable');
    });
  }
  void reply.clearCookie(dashboardCookies(dash.settings.cookieSecure).form, {
    ...cookieOptions(dash),
    sameSite: 'strict',
  });
}
