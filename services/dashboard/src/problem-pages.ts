import type { FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml } from '@dzpay/platform';
import { chooseLanguage } from './language.ts';
import { publicPage, signedInPage } from './layout.ts';
import { textsOf } from './messages.ts';
import { DashboardPaths } from './navigation.ts';
import { sessionOfRequest } from './session-guard.ts';

/**
 * An error page: inside the signed-in layout when the request had a session, a plain
 * page otherwise. Never a JSON envelope, never internals.
 */
export function problem(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  text: string,
  title?: string,
) {
  const found = sessionOfRequest(request);
  const language = found
    ? found.record.language
    : chooseLanguage(
        (request.query as { lang?: unknown } | undefined)?.lang,
        request.headers['accept-language'],
      );
  const t = textsOf(language);
  const heading = title ?? (status === 404 ? t.notFound : t.dashboard);
  const body = `<p role="alert">${escapeHtml(text)}</p>`;
  const html = found
    ? signedInPage(
        {
          language,
          merchantName: found.user.merchantName,
          role: found.user.role,
          mode: found.record.mode,
          csrfToken: found.record.csrfToken,
          path: request.url.split('?')[0] ?? DashboardPaths.home,
        },
        heading,
        body,
      )
    : publicPage({
        language,
        title: heading,
        body: `${body}<p><a href="${DashboardPaths.home}">${escapeHtml(t.dashboard)}</a></p>`,
      });
  return reply.code(status).type('text/html; charset=utf-8').send(html);
}
