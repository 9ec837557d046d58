import type { Language, Mode } from '@dzpay/contracts';
import { escapeHtml } from '@dzpay/platform';
import { directionOf } from './language.ts';
import { textsOf } from './messages.ts';
import { DashboardPaths } from './navigation.ts';
import { DashboardRoles } from '@dzpay/accounts';
import { allows, type DashboardRole } from './permissions.ts';

/** The headers every dashboard answer carries (pages, downloads, redirects). */
export const SECURITY_HEADERS: Record<string, string> = {
  // No script at all; styles from our one stylesheet only; images ours or inline data
  // (QR codes); forms post back to us.
  'content-security-policy': [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self' data:",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

const LANGUAGE_NAMES: Record<Language, string> = { ar: 'العربية', fr: 'Français', en: 'English' };
const LANGUAGES: Language[] = ['ar', 'fr', 'en'];

export interface SignedInFrame {
  language: Language;
  merchantName: string;
  mode: Mode;
  csrfToken: string;
  /** The path being shown: the current navigation entry. */
  path: string;
  /** Where the header's switches send the browser back (the path and its query). */
  returnTo?: string;
  flash?: { kind: 'ok' | 'error'; text: string } | undefined;
  /**
   * The user's role: the navigation lists only the pages it may open. Without one (a
   * caller that does not know it), only the pages every role may open are listed.
   */
  role?: DashboardRole;
}

/** Whether a navigation entry is shown: the role may open it (every role, with none given). */
function opens(role: DashboardRole | undefined, href: string): boolean {
  if (role) return allows(role, 'GET', href);
  return DashboardRoles.every((each) => allows(each, 'GET', href));
}

function head(language: Language, title: string): string {
  return `<!doctype html>
<html lang="${language}" dir="${directionOf(language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · dzpay</title>
<link rel="stylesheet" href="${DashboardPaths.stylesheet}">
</head>`;
}

export function flashHtml(flash: SignedInFrame['flash']): string {
  if (!flash) return '';
  const role = flash.kind === 'error' ? 'alert' : 'status';
  return `<p class="flash ${flash.kind}" role="${role}">${escapeHtml(flash.text)}</p>`;
}

function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
}

/** A page for a signed-in user: header, switches, navigation, then the page's body. */
export function signedInPage(frame: SignedInFrame, title: string, bodyHtml: string): string {
  const t = textsOf(frame.language);
  const csrf = hidden('_csrf', frame.csrfToken);
  const back = hidden('return', frame.returnTo ?? frame.path);
  const nav: [string, string][] = [
    [DashboardPaths.payments, t.payments],
    [DashboardPaths.paymentLinks, t.paymentLinks],
    [DashboardPaths.qrCodes, t.qrCodes],
    [DashboardPaths.balance, t.balance],
    [DashboardPaths.report, t.report],
    [DashboardPaths.webhooks, t.webhooks],
    [DashboardPaths.apiKeys, t.apiKeys],
    [DashboardPaths.team, t.team],
    [DashboardPaths.audit, t.audit],
  ];
  const links = nav
    .filter(([href]) => opens(frame.role, href))
    .map(([href, label]) => {
      const current =
        frame.path === href || frame.path.startsWith(`${href}/`) ? ' aria-current="page"' : '';
      return `<li><a href="${href}"${current}>${escapeHtml(label)}</a></li>`;
    })
    .join('');
  const modeButtons = (['test', 'live'] as const)
    .map(
      (mode) =>
        `<button type="submit" name="mode" value="${mode}" aria-pressed="${mode === frame.mode}">${escapeHtml(
          mode === 'test' ? t.modeTest : t.modeLive,
        )}</button>`,
    )
    .join('');
  const languageButtons = LANGUAGES.map(
    (language) =>
      `<button type="submit" name="language" value="${language}" lang="${language}" aria-pressed="${
        language === frame.language
      }">${LANGUAGE_NAMES[language]}</button>`,
  ).join('');
  const liveBanner =
    frame.mode === 'live'
      ? `<p class="live-banner">${escapeHtml(`${t.currentMode}: ${t.modeLive}`)}</p>`
      : '';
  return `${head(frame.language, title)}
<body>
<a class="skip" href="#main">${escapeHtml(t.skipToContent)}</a>
<header class="top">
<div class="brand">dzpay · ${escapeHtml(t.dashboard)}<span class="merchant">${escapeHtml(frame.merchantName)}</span></div>
<div class="switches">
<form class="switch" method="post" action="${DashboardPaths.mode}" aria-label="${escapeHtml(t.mode)}">${csrf}${back}<span class="legend" aria-hidden="true">${escapeHtml(t.mode)}</span>${modeButtons}</form>
<form class="switch" method="post" action="${DashboardPaths.language}" aria-label="${escapeHtml(t.language)}">${csrf}${back}${languageButtons}</form>
</div>
</header>
<nav class="main" aria-label="${escapeHtml(t.navigation)}"><ul>${links}<li><form method="post" action="${DashboardPaths.logout}">${csrf}<button type="submit">${escapeHtml(t.logout)}</button></form></li></ul></nav>
${liveBanner}
<main id="main">
${flashHtml(frame.flash)}
<h1>${escapeHtml(title)}</h1>
${bodyHtml}
</main>
</body>
</html>`;
}

/** A page before sign-in (sign-in, invitation, errors): no navigation, links to switch language. */
export function publicPage(options: {
  language: Language;
  title: string;
  body: string;
  /** The page's own path, for the language links (query ?lang=). */
  path?: string;
}): string {
  const t = textsOf(options.language);
  const languages = options.path
    ? `<nav class="languages" aria-label="${escapeHtml(t.language)}">${LANGUAGES.map(
        (language) =>
          `<a href="${escapeHtml(withLang(options.path!, language))}" lang="${language}"${
            language === options.language ? ' aria-current="true"' : ''
          }>${LANGUAGE_NAMES[language]}</a>`,
      ).join('')}</nav>`
    : '';
  return `${head(options.language, options.title)}
<body>
<main id="main" class="narrow">
<p class="brand product">dzpay · ${escapeHtml(t.dashboard)}</p>
<div class="card">
<h1>${escapeHtml(options.title)}</h1>
${options.body}
</div>
${languages}
</main>
</body>
</html>`;
}

function withLang(path: string, language: Language): string {
  const [base = '', query = ''] = path.split('?');
  const params = new URLSearchParams(query);
  params.set('lang', language);
  return `${base}?${params.toString()}`;
}
