/**
 * What is wrong with a partner's API_URL, or null when it can be stored: an absolute
 * http(s) URL without credentials, query or fragment. dzpay appends paths to it
 * (`/{reference}`, `/webhooks/platform`); a query or fragment would make that ambiguous,
 * and credentials in it would be kept in clear where the secret is kept sealed.
 */
export function apiUrlProblem(apiUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http(s) URL';
  if (url.username !== '' || url.password !== '') return 'must not carry a user or password';
  // Checked on the text: an empty query (`?`) or fragment (`#`) leaves search/hash empty.
  if (apiUrl.includes('?')) return 'must not have a query (?...)';
  if (apiUrl.includes('#')) return 'must not have a fragment (#...)';
  return null;
}

/**
 * `{API_URL}/{segments...}`, each segment percent-encoded, joined with the URL API: a
 * query in API_URL stays a query (it never swallows the path) and a fragment is dropped
 * (it is never sent). `.`, `..` and empty segments are refused, since a URL resolves
 * them and `{API_URL}/..` would ask the partner's parent path, with its secret.
 */
export function partnerUrl(apiUrl: string, ...segments: string[]): URL {
  const url = new URL(apiUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`partner API_URL must be http(s), not ${url.protocol}`);
  }
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..') {
      throw new RangeError(`not a path segment: "${segment}"`);
    }
  }
  const base = url.pathname.replace(/\/+$/, '');
  url.pathname = `${base}/${segments.map((segment) => encodeURIComponent(segment)).join('/')}`;
  url.hash = '';
  // An empty query (`API_URL?`) would leave a bare `?` on the path.
  if (url.search === '') url.search = '';
  return url;
}
