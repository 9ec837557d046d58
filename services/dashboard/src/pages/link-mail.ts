import type { Language } from '@dzpay/contracts';
import { escapeHtml } from '@dzpay/platform';
import { directionOf } from '../language.ts';

/** An email ready for the mailer. */
export interface LinkMail {
  subject: string;
  html: string;
  text: string;
}

/** What an email carrying one link says, in its language. */
export interface LinkMailTexts {
  subject: string;
  hello: string;
  /** Why the reader gets it. */
  intro: string;
  button: string;
  /** How long the link works. */
  expiry: string;
  /** What to do when it was not expected. */
  ignore: string;
}

/**
 * An email whose point is one link (a password reset, an invitation): the link as a
 * button and as text (mail clients that show no HTML, and people who copy it), how long
 * it works, and what to do when it was not expected. Pure; inline styles only, nothing
 * fetched; right to left in Arabic, the link itself left to right.
 */
export function linkMail(language: Language, link: string, t: LinkMailTexts): LinkMail {
  const e = escapeHtml;
  const text = [t.hello, '', t.intro, '', link, '', t.expiry, '', t.ignore, ''].join('\n');
  const html = `<!doctype html>
<html lang="${language}" dir="${directionOf(language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(t.subject)}</title>
</head>
<body style="margin:0;padding:24px;background:#f4f5f7;font-family:Tahoma,Arial,sans-serif;color:#1d1d1f">
<div style="max-width:560px;margin:0 auto;background:#fff;border-radius:8px;padding:24px">
<p style="margin:0 0 12px">${e(t.hello)}</p>
<p style="margin:0 0 16px">${e(t.intro)}</p>
<p style="margin:0 0 16px"><a href="${e(link)}" style="display:inline-block;background:#0b5cad;color:#fff;text-decoration:none;padding:10px 16px;border-radius:6px">${e(t.button)}</a></p>
<p style="margin:0 0 16px;font-size:13px;word-break:break-all" dir="ltr">${e(link)}</p>
<p style="margin:0 0 12px;color:#555;font-size:13px">${e(t.expiry)}</p>
<p style="margin:0;color:#555;font-size:13px">${e(t.ignore)}</p>
</div>
</body>
</html>
`;
  return { subject: t.subject, html, text };
}
