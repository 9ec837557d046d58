import { escapeHtml } from '@dzpay/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sameToken } from './csrf.ts';
import { signedInPage } from './layout.ts';
import { textsOf } from './messages.ts';
import { DashboardPaths, returnPathOf } from './navigation.ts';
import type { PageContext, PageHandler, PageKit } from './page-kit.ts';
import { resolveSession, sessionView, type ResolvedSession } from './session-guard.ts';
import type { DashboardDeps } from './settings.ts';
import { problem } from './problem-pages.ts';

/** A route path under the plugin's /dashboard prefix, whether given with it or without. */
export function relativePath(path: string): string {
  const rest = path.startsWith(DashboardPaths.home) ? path.slice(DashboardPaths.home.length) : path;
  if (rest === '' || rest === '/') return '/';
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/** Where an unauthenticated request is sent: the sign-in page, then back here. */
function toLogin(request: FastifyRequest, reply: FastifyReply) {
  const next = request.method === 'GET' ? request.url : DashboardPaths.home;
  const query = next === DashboardPaths.home ? '' : `?next=${encodeURIComponent(next)}`;
  return reply.redirect(`${DashboardPaths.login}${query}`, 303);
}

/**
 * The PageKit (page-kit.ts) over an encapsulated /dashboard plugin: every route it adds
 * runs only with a live session, and every POST only with the session's CSRF token.
 */
export function createPageKit(app: FastifyInstance, dash: DashboardDeps): PageKit {
  const contextOf = (
    request: FastifyRequest,
    reply: FastifyReply,
    found: ResolvedSession,
    flash: ResolvedSession['record']['flash'],
  ): PageContext => {
    const session = sessionView(found);
    const path = request.url.split('?')[0] ?? DashboardPaths.home;
    return {
      request,
      reply,
      session,
      scope: { merchantId: session.merchantId, mode: session.mode },
      language: session.language,
      escape: escapeHtml,
      page: (title, bodyHtml) =>
        signedInPage(
          {
            language: session.language,
            merchantName: session.merchantName,
            mode: session.mode,
            csrfToken: session.csrfToken,
            path,
            returnTo: returnPathOf(request.method, request.url, request.headers.referer),
            flash,
          },
          title,
          bodyHtml,
        ),
      csrfField: () =>
        `<input type="hidden" name="_csrf" value="${escapeHtml(session.csrfToken)}">`,
      flash: async (kind, text) => {
        found.record.flash = { kind, text };
        await dash.sessions.save(found.cookieId, found.record);
      },
    };
  };

  /** Runs a handler behind the session guard (and, for forms, the CSRF check). */
  const guarded =
    (handler: PageHandler, checkCsrf: boolean, showsFlash = true) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const found = await resolveSession(request, dash);
      if (!found) return toLogin(request, reply);
      if (checkCsrf) {
        const body = request.body as Record<string, unknown> | null | undefined;
        if (!sameToken(found.record.csrfToken, body?._csrf)) {
          const t = textsOf(found.record.language);
          return problem(request, reply, 403, t.formExpired);
        }
      }
      // A notice left by the previous request is shown on this page, once.
      const flash = found.record.flash;
      if (flash && showsFlash && request.method === 'GET') {
        delete found.record.flash;
        await dash.sessions.save(found.cookieId, found.record);
      }
      const html = await handler(contextOf(request, reply, found, flash));
      if (typeof html === 'string' && !reply.sent) {
        return reply.type('text/html; charset=utf-8').send(html);
      }
      // A handler that neither answered HTML nor sent anything would leave the browser
      // waiting: a bug, said as one.
      if (!reply.sent) throw new Error(`dashboard page ${request.url} sent no answer`);
      return reply;
    };

  return {
    deps: dash,
    app,
    get: (path, handler) => {
      app.get(relativePath(path), guarded(handler, false));
    },
    post: (path, handler) => {
      app.post(relativePath(path), guarded(handler, true));
    },
    download: (path, handler) => {
      app.get(
        relativePath(path),
        guarded(
          async (context) => {
            await handler(context);
          },
          false,
          false,
        ),
      );
    },
  };
}
