/**
 * The spec: `reference=<merchant reference>` is appended, the URL's own query kept. The
 * URL is kept as the merchant wrote it (their return URLs may be signed): the parameter
 * is added to the raw text, before any fragment.
 */
export function withReference(url: string, reference: string): string {
  const hashAt = url.indexOf('#');
  const base = hashAt === -1 ? url : url.slice(0, hashAt);
  const fragment = hashAt === -1 ? '' : url.slice(hashAt);
  const separator = !base.includes('?') ? '?' : /[?&]$/.test(base) ? '' : '&';
  return `${base}${separator}reference=${encodeURIComponent(reference)}${fragment}`;
}
