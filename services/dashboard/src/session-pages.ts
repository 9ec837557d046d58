import { Mode } from '@dzpay/contracts';
import { isLanguage } from './language.ts';
import { DashboardPaths, safeReturnPath } from './navigation.ts';
import type { PageKit } from './page-kit.ts';
import { clearSessionCookie, sessionOfRequest } from './session-guard.ts';
import type { DashboardDeps } from './settings.ts';

type Form = Record<string, unknown>;

/** The header's switches (mode, language) and signing out. */
export function sessionPages(kit: PageKit, dash: DashboardDeps): void {
  kit.post(DashboardPaths.mode, async ({ request, reply }) => {
    const body = request.body as Form;
    const found = sessionOfRequest(request)!;
    const mode = Mode.safeParse(body.mode);
    if (mode.success && mode.data !== found.record.mode) {
      found.record.mode = mode.data;
      await dash.sessions.save(found.cookieId, found.record);
    }
    await reply.redirect(safeReturnPath(body.return), 303);
  });

  kit.post(DashboardPaths.language, async ({ request, reply }) => {
    const body = request.body as Form;
    const found = sessionOfRequest(request)!;
    if (isLanguage(body.language) && body.language !== found.record.language) {
      found.record.language = body.language;
      await dash.sessions.save(found.cookieId, found.record);
    }
    await reply.redirect(safeReturnPath(body.return), 303);
  });

  kit.post(DashboardPaths.logout, async ({ request, reply }) => {
    const found = sessionOfRequest(request)!;
    await dash.sessions.destroy(found.cookieId, found.record.userId);
    clearSessionCookie(reply, dash);
    await reply.redirect(DashboardPaths.login, 303);
  });

  kit.post(DashboardPaths.logoutEverywhere, async ({ request, reply }) => {
    const found = sessionOfRequest(request)!;
    await dash.sessions.destroyAllOf(found.record.userId);
    clearSessionCookie(reply, dash);
    await reply.redirect(`${DashboardPaths.login}?ended=everywhere`, 303);
  });
}
