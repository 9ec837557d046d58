import type autocannon from 'autocannon';

// The requests of the measured paths, as autocannon sends them, and the first request of
// each checked by hand: a path that answers errors would otherwise be measured at speed.

/** A path's requests: everything but how long and how many connections. */
export type RequestOptions = Omit<autocannon.Options, 'duration' | 'connections'>;

/** `base` for every request, with what `nth` makes of each request's number. */
function eachRequest(
  base: Pick<RequestOptions, 'url' | 'method' | 'headers'>,
  nth: (n: number) => { body: string } | { path: string },
): RequestOptions {
  let n = 0;
  return { ...base, requests: [{ setupRequest: (request) => ({ ...request, ...nth(n++) }) }] };
}

const json = (key: string) => ({ 'x-api-key': key, 'content-type': 'application/json' });

/** register-payment: each request a new reference (a repeated one is a 409). */
export function registerPaymentOptions(baseUrl: string, key: string, run: string): RequestOptions {
  return eachRequest(
    { url: `${baseUrl}/api/v1/payments`, method: 'POST', headers: json(key) },
    (order) => ({
      body: JSON.stringify({
        amount: 250_000,
        currency: 'DZD',
        reference: `BENCH-${run}-${order}`,
        successUrl: 'https://shop.example/ok',
      }),
    }),
  );
}

/**
 * set-qr-config: each request takes the next token, so concurrent requests update
 * different rows, as different merchants' QR codes would, instead of queueing on one
 * row's lock.
 */
export function setQrConfigOptions(baseUrl: string, key: string, tokens: string[]): RequestOptions {
  return eachRequest(
    { url: `${baseUrl}/set-qr-config`, method: 'POST', headers: json(key) },
    (next) => ({ body: qrConfigBody(tokens[next % tokens.length]!) }),
  );
}

export function statusPath(reference: string): string {
  return `/partner/payments/v1/${reference}/status`;
}

/** The status query, each request for the next seeded reference. */
export function statusQueryOptions(
  baseUrl: string,
  key: string,
  references: string[],
): RequestOptions {
  return eachRequest({ url: baseUrl, method: 'GET', headers: { 'x-api-key': key } }, (asked) => ({
    path: statusPath(references[asked % references.length]!),
  }));
}

function qrConfigBody(token: string): string {
  return JSON.stringify({ token, amounts: [1500, 2500.5], singleUse: false });
}

/** Fails fast, with the gateway's answer, rather than benchmarking a stream of errors. */
export async function checkSetQrConfig(baseUrl: string, key: string, token: string): Promise<void> {
  const response = await fetch(`${baseUrl}/set-qr-config`, {
    method: 'POST',
    headers: json(key),
    body: qrConfigBody(token),
  });
  if (!response.ok) {
    throw new Error(`set-qr-config answered ${response.status}: ${await response.text()}`);
  }
}

/** The first status query must answer 200 with the seeded reference `locked`. */
export async function checkStatusQuery(
  baseUrl: string,
  key: string,
  reference: string,
  stage = 'locked',
): Promise<void> {
  const response = await fetch(`${baseUrl}${statusPath(reference)}`, {
    headers: { 'x-api-key': key },
  });
  const text = await response.text();
  if (!response.ok || (JSON.parse(text) as { data?: { stage?: string } }).data?.stage !== stage) {
    throw new Error(`status query answered ${response.status}: ${text}`);
  }
}
