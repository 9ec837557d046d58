import { randomBytes } from 'node:crypto';
import type { Language } from '@dzpay/contracts';
import { escapeHtml } from '@dzpay/platform';

export interface Page {
  html: string;
  /** The Content-Security-Policy header that goes with this page (nonce included). */
  csp: string;
}

const STYLE = `
  :root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Tahoma, sans-serif; }
  body { margin: 0; background: #f4f6f8; color: #1c2430; }
  main { max-width: 28rem; margin: 2rem auto; background: #fff; border-radius: 12px; padding: 1.5rem;
         box-shadow: 0 1px 4px rgba(0,0,0,.12); }
  h1 { font-size: 1.3rem; margin: 0 0 1rem; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: .5rem 1rem; margin: 0 0 1.25rem; }
  dt { color: #4a5565; } dd { margin: 0; text-align: end; font-variant-numeric: tabular-nums; }
  .total { font-weight: 700; font-size: 1.1rem; }
  button, .button { display: block; width: 100%; box-sizing: border-box; padding: .9rem; border: 0;
         border-radius: 8px; background: #0b6b3a; color: #fff; font-size: 1rem; text-align: center;
         text-decoration: none; cursor: pointer; }
  input { font: inherit; padding: .6rem; width: 100%; box-sizing: border-box; border: 1px solid #767676; border-radius: 6px; }
  input:focus-visible, button:focus-visible, a:focus-visible { outline: 3px solid #f0b400; outline-offset: 2px; }
  .note { color: #4a5565; font-size: .85rem; margin-top: 1rem; }
  nav { display: flex; gap: .75rem; justify-content: center; margin-top: 1.25rem; font-size: .9rem; }
  nav a { color: #0b4f8a; }
  .status { font-size: 1.2rem; font-weight: 700; margin: 0 0 1rem; }
  .success { color: #0b6b3a; } .failed { color: #a11d1d; }
`;

/**
 * The frame of every payer page: language and direction (Arabic right to left), system
 * fonts only, no external asset, and a Content-Security-Policy that allows nothing but
 * this page's own style and script (by nonce) and forms posting to us.
 */
export function layout(options: {
  language: Language;
  title: string;
  body: string;
  script?: string;
  refreshSeconds?: number;
}): Page {
  const nonce = randomBytes(16).toString('base64');
  const dir = options.language === 'ar' ? 'rtl' : 'ltr';
  const refresh = options.refreshSeconds
    ? `<meta http-equiv="refresh" content="${options.refreshSeconds}">`
    : '';
  const script = options.script ? `<script nonce="${nonce}">${options.script}</script>` : '';
  const html = `<!doctype html>
<html lang="${options.language}" dir="${dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
${refresh}
<title>${escapeHtml(options.title)} · dzpay</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<main>
${options.body}
</main>
${script}
</body>
</html>`;
  const csp = [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    "img-src 'self' data:",
    // The pay form posts to us and is redirected to the card network's own form.
    "form-action 'self' https: http:",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return { html, csp };
}
