import type { Language } from '../domain/test-cards.ts';

/**
 * Headers of every page. The form takes card data, so it loads nothing from anywhere
 * (inline style only), cannot be framed, and may post only to itself or be redirected
 * to the merchant's returnUrl, which form-action also governs.
 */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
} as const;

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for element content and quoted attribute values alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

const STYLE = `
body{font-family:system-ui,sans-serif;background:#f3f4f6;margin:0;padding:2rem 1rem;color:#111}
main{max-width:26rem;margin:auto;background:#fff;border-radius:.5rem;padding:1.5rem;box-shadow:0 1px 3px #0002}
h1{font-size:1.25rem;margin:0 0 1rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:0 0 1rem}
dt{color:#555}dd{margin:0;font-weight:600}
label{display:block;margin:.75rem 0 .25rem}
input{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem;border:1px solid #bbb;border-radius:.25rem}
.row{display:flex;gap:1rem}.row>div{flex:1}
button{margin-top:1.25rem;width:100%;padding:.75rem;font-size:1rem;background:#0b6b3a;color:#fff;border:0;border-radius:.25rem}
.error{background:#fde8e8;color:#9b1c1c;padding:.5rem;border-radius:.25rem}
.note{color:#555;font-size:.85rem;margin-top:1rem}`;

/** A whole page; Arabic is laid out right to left. `body` must already be escaped. */
export function page(language: Language, title: string, body: string): string {
  const dir = language === 'ar' ? 'rtl' : 'ltr';
  return `<!doctype html>
<html lang="${language}" dir="${dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body><main>
${body}
</main></body>
</html>
`;
}
