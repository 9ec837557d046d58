import { replaceBidiControls } from '@dzpay/contracts';

/**
 * Text made safe to place in HTML, as element content or a quoted attribute value. Its
 * bidirectional controls become U+FFFD too: a label or a reference from a merchant or a
 * partner cannot reorder what is around it, in a <title> either, which holds no markup
 * that could isolate it.
 */
export function escapeHtml(text: string): string {
  return replaceBidiControls(text)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}
