import type { Language } from '@dzpay/contracts';
import { escapeHtml } from '@dzpay/platform';
import { directionOf } from './language.ts';
import { DashboardPaths } from './navigation.ts';
import { resetTextsOf } from './password-reset-messages.ts';

export interface ResetMail {
  subject: string;
  html: string;
  text: string;
}

/**
 * The link a reset email carries: the dashboard's page under the public base URL (the
 * ingress sends /dashboard there), in the language the link was asked in.
 */
export function resetLink(publicBaseUrl: string, token: string, language: Language): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${DashboardPaths.passwordReset}/${token}?lang=${language}`;
}

/**
 * The reset email in one language: the link as a button and as text (mail clients that
 * show no HTML, and people who copy it), how long it works, and what to do when it was
 * not asked for. Pure; inline styles only, nothing fetched.
 */
export function resetMail(options: {
  language: Language;
  email: string;
  link: string;
  minutes: number;
}): ResetMail {
  const t = resetTextsOf(options.language);
  const direction = directionOf(options.language);
  const e = escapeHtml;
  const text = [
    t.mailHello,
    '',
    t.mailIntro(options.email),
    '',
    options.link,
    '',
    t.mailExpiry(options.minutes),
    '',
    t.mailIgnore,
    '',
  ].join('\n');
  const html = `<!doctype html>
<html lang="${options.language}" dir="${direction}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(t.mailSubject)}</title>
</head>
<body style="margin:0;padding:24px;background:#f4f5f7;font-family:Tahoma,Arial,sans-serif;color:#1d1d1f">
<div style="max-width:560px;margin:0 auto;background:#fff;border-radius:8px;padding:24px">
<p style="margin:0 0 12px">${e(t.mailHello)}</p>
<p style="margin:0 0 16px">${e(t.mailIntro(options.email))}</p>
<p style="margin:0 0 16px"><a href="${e(options.link)}" style="display:inline-block;background:#0b5cad;color:#fff;text-decoration:none;padding:10px 16px;border-radius:6px">${e(t.mailButton)}</a></p>
<p style="margin:0 0 16px;font-size:13px;word-break:break-all" dir="ltr">${e(options.link)}</p>
<p style="margin:0 0 12px;color:#555;font-size:13px">${e(t.mailExpiry(options.minutes))}</p>
<p style="margin:0;color:#555;font-size:13px">${e(t.mailIgnore)}</p>
</div>
</body>
</html>
`;
  return { subject: t.mailSubject, html, text };
}
