import { escapeHtml } from '@dzpay/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sameToken } from './csrf.ts';
import { signedInPage } from './layout.ts';
import { textsOf } from './messages.ts';
import { DashboardPaths, returnPathOf } from './navigation.ts';
import type { PageContext, PageHandler, PageKit } from './page-kit.ts';
import { allows, permissionRowOf, rolesFor, type DashboardRole } from './permissions.ts';
import { resolveSession, sessionView, type ResolvedSession } from './session-guard.ts';
import type { DashboardDeps } from './settings.ts';
import { problem } from './problem-pages.ts';

/** A route path under the plugin's /dashboard prefix, whether given with it or without. */
export function relativePath(path: string): string {
  const rest = path.startsWith(DashboardPaths.home) ? path.slice(DashboardPaths.home.length) : path;
  if (rest === '' || rest === '/') return '/';
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/** A route the dashboard serves, and whether the session guard (with its roles) runs it. */
export interface ServedRoute {
  method: string;
  url: string;
  guarded: boolean;
}

// Every route of the /dashboard scope from the kit's creation on, by the deps it was
// built with: the permissions test checks each against the permission table.
const servedByDeps = new WeakMap<DashboardDeps, ServedRoute[]>();

/** The routes the dashboard built on these deps serves (tests read it). */
export function servedRoutes(dash: DashboardDeps): readonly ServedRoute[] {
  return servedByDeps.get(dash) ?? [];
}

/** The 403 page: the user's own layout and language, saying what their role is. */
function forbidden(request: FastifyRequest, reply: FastifyReply, found: ResolvedSession) {
  const t = textsOf(found.record.language);
  request.log.info(
    {
      userId: found.user.id,
      role: found.user.role,
      method: request.method,
      route: request.routeOptions.url,
    },
    'dashboard request refused by role',
  );
  const html = signedInPage(
    {
      language: found.record.language,
      merchantName: found.user.merchantName,
      mode: found.record.mode,
      csrfToken: found.record.csrfToken,
      path: request.url.split('?')[0] ?? DashboardPaths.home,
      role: found.user.role,
    },
    t.forbiddenTitle,
    `<p role="alert">${escapeHtml(t.forbiddenText(t.roleNames[found.user.role]))}</p>
<p><a href="${DashboardPaths.home}">${escapeHtml(t.backHome)}</a></p>`,
  );
  return reply.code(403).type('text/html; charset=utf-8').send(html);
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
  const served: ServedRoute[] = [];
  const guardedSet = new Set<string>();
  servedByDeps.set(dash, served);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      served.push({ method, url: route.url, guarded: guardedSet.has(`${method} ${route.url}`) });
    }
  });

  const contextOf = (
    request: FastifyRequest,
    reply: FastifyReply,
    found: ResolvedSession,
    flash: ResolvedSession['record']['flash'],
  ): PageContext => {
    const session = sessionView(found);
    const role = found.user.role;
    const path = request.url.split('?')[0] ?? DashboardPaths.home;
    return {
      request,
      reply,
      session,
      allows: (method, target) => allows(role, method, target),
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
            role,
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

  /**
   * Runs a handler behind the session guard, the role's permission (permissions.ts,
   * decided once for the route as registered) and, for forms, the CSRF check.
   */
  const guarded =
    (
      handler: PageHandler,
      roles: readonly DashboardRole[],
      checkCsrf: boolean,
      showsFlash = true,
    ) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const found = await resolveSession(request, dash);
      if (!found) return toLogin(request, reply);
      // Before the CSRF check and the handler: a refused role learns nothing more, and a
      // forged form of a role that may not use it does nothing.
      if (!roles.includes(found.user.role)) return forbidden(request, reply, found);
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
      // waiting: a bug, said as one, by its route (a URL is never logged).
      if (!reply.sent) {
        throw new Error(`dashboard page ${request.routeOptions.url ?? '?'} sent no answer`);
      }
      return reply;
    };

  /** The roles of a route as registered under /dashboard, and the route marked guarded. */
  const rolesOf = (method: 'GET' | 'POST', path: string) => {
    const url = `${DashboardPaths.home}${relativePath(path)}`;
    // The prefix's own '/' is served as /dashboard (and /dashboard/).
    const urls = url === `${DashboardPaths.home}/` ? [url, DashboardPaths.home] : [url];
    for (const each of urls) {
      guardedSet.add(`${method} ${each}`);
      // Fastify answers HEAD with a GET route: it is guarded the same way.
      if (method === 'GET') guardedSet.add(`HEAD ${each}`);
    }
    return rolesFor(method, url);
  };

  return {
    deps: dash,
    app,
    get: (path, handler) => {
      app.get(relativePath(path), guarded(handler, rolesOf('GET', path), false));
    },
    post: (path, handler) => {
      app.post(relativePath(path), guarded(handler, rolesOf('POST', path), true));
    },
    download: (path, handler) => {
      app.get(
        relativePath(path),
        guarded(
          async (context) => {
            await handler(context);
          },
          rolesOf('GET', path),
          false,
          false,
        ),
      );
    },
  };
}

/** Whether the permission table has a row of its own for a route (not the default). */
export function hasPermissionRow(method: string, url: string): boolean {
  return permissionRowOf(method, url) !== undefined;
}
