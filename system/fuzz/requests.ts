import fc from 'fast-check';
import type { FuzzBody, FuzzRequest } from './http.ts';
import {
  encodeSegment,
  hostileJson,
  hostileJsonText,
  hostileString,
  HOSTILE_STRINGS,
  PATH_TRICKS,
} from './hostile.ts';
import {
  nearValid,
  schemaArbitrary,
  withDuplicateKey,
  type Hints,
  type JsonSchema,
} from './schema.ts';
import type { World } from './world.ts';

/** The parts of the OpenAPI document the generators read. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, JsonSchema> };
}

interface OpenApiOperation {
  tags?: string[];
  security?: unknown[];
  parameters?: { name: string; in: 'path' | 'query' | 'header' }[];
  requestBody?: { content: Record<string, { schema?: JsonSchema }> };
}

/** A route the gateway registered, with its OpenAPI operation when it has one. */
export interface RouteTarget {
  method: string;
  /** Fastify's pattern: `:name` parameters, `*` wildcards. */
  pattern: string;
  operation: OpenApiOperation | undefined;
}

export const routeLabel = (route: { method: string; pattern: string }) =>
  `${route.method} ${route.pattern}`;

/**
 * Every route the app registered (HEAD twins, the docs and the favicon included),
 * each with the document's operation for it; a HEAD twin borrows its GET's.
 */
export function routeTargets(
  document: OpenApiDocument,
  served: readonly { method: string; url: string }[],
): RouteTarget[] {
  return served.map(({ method, url }) => {
    const path = url.replace(/:(\w+)/g, '{$1}');
    const methods = document.paths[path];
    const operation =
      methods?.[method.toLowerCase()] ?? (method === 'HEAD' ? methods?.get : undefined);
    return { method, pattern: url, operation };
  });
}

const HTTP_METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'TRACE',
  'PROPFIND',
];

/** Hints that make schema-valid bodies valid for the contracts' refinements too. */
function bodyHints(world: World): Hints {
  const futureIso = fc
    .integer({ min: 3_600_000, max: 400 * 86_400_000 })
    .map((ms) => new Date(Date.now() + ms).toISOString());
  return {
    token: fc.constantFrom(...world.qrTokens),
    amounts: fc.array(
      fc.integer({ min: 1_000, max: 100_000_000 }).map((centimes) => centimes / 100),
      { minLength: 1, maxLength: 4 },
    ),
    expiresAt: fc.oneof(
      futureIso,
      futureIso.map((iso) => iso.slice(0, 19)),
      futureIso.map((iso) => iso.replace('Z', '+01:00')),
      fc.constant(null),
    ),
    amount: fc.integer({ min: 5_000, max: 100_000_000 }),
    currency: fc.constant('DZD'),
    reference: fc.oneof(
      fc.uuid().map((id) => `FZ-${id}`),
      fc.constantFrom(...world.references),
    ),
    successUrl: fc.webUrl({ withQueryParameters: true }),
    failureUrl: fc.webUrl(),
    email: fc.emailAddress(),
  };
}

/** Where a path parameter can point at something real in the world. */
function knownValues(pattern: string, name: string, world: World): string[] {
  if (name === 'token') return pattern.startsWith('/qr') ? world.qrTokens : world.checkoutTokens;
  if (name === 'merchantId') return [world.merchantId, world.inactiveMerchantId];
  if (name === 'reference') return world.references;
  if (name === 'paymentId') return world.paymentIds;
  if (name === 'id') return pattern.includes('deliveries') ? world.deliveryIds : world.paymentIds;
  return [];
}

/** A path segment for one parameter: real, nearly real, random or hostile, encoded or not. */
function segmentArbitrary(known: string[]): fc.Arbitrary<string> {
  const real = known.length > 0 ? fc.constantFrom(...known) : fc.uuid();
  const value = fc.oneof(
    { weight: 6, arbitrary: real },
    {
      weight: 2,
      arbitrary: fc
        .tuple(real, fc.constantFrom('upper', 'cut', 'append', 'space', 'double'))
        .map(([text, how]) =>
          how === 'upper'
            ? text.toUpperCase()
            : how === 'cut'
              ? text.slice(0, -1)
              : how === 'append'
                ? `${text}x`
                : how === 'space'
                  ? ` ${text} `
                  : text + text,
        ),
    },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 4, arbitrary: hostileString },
  );
  return fc.oneof(
    { weight: 8, arbitrary: value.map(encodeSegment) },
    { weight: 2, arbitrary: fc.constantFrom(...PATH_TRICKS) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(value, fc.constantFrom(...PATH_TRICKS), fc.boolean())
        .map(([text, trick, before]) =>
          before ? trick + encodeSegment(text) : encodeSegment(text) + trick,
        ),
    },
    // Not encoded at all: spaces, UTF-8, controls go raw on the wire.
    { weight: 1, arbitrary: value },
  );
}

function wildcardArbitrary(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(
      'swagger-ui.css',
      'swagger-ui-bundle.js',
      'index.html',
      'favicon-32x32.png',
      'nope.js',
      '../../package.json',
      '..%2f..%2fpackage.json',
      '%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      '....//....//package.json',
      '%00.js',
      'swagger-ui.css%00.html',
    ),
    fc.array(segmentArbitrary([]), { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/')),
  );
}

function pathArbitrary(route: RouteTarget, world: World): fc.Arbitrary<string> {
  const parts = route.pattern.split('/').map((segment): fc.Arbitrary<string> => {
    if (segment.startsWith(':'))
      return segmentArbitrary(knownValues(route.pattern, segment.slice(1), world));
    if (segment === '*') return wildcardArbitrary();
    return fc.constant(segment);
  });
  return fc.tuple(...parts).map((segments) => segments.join('/'));
}

const QUERY_VALUES: Record<string, readonly string[]> = {
  lang: ['ar', 'fr', 'en', 'AR', 'de'],
  mode: ['test', 'live', 'TEST', 'prod'],
};

function queryArbitrary(route: RouteTarget, world: World): fc.Arbitrary<string> {
  const names = (route.operation?.parameters ?? [])
    .filter((parameter) => parameter.in === 'query')
    .map((parameter) => parameter.name);
  const valueOf = (name: string) =>
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...(QUERY_VALUES[name] ?? world.references)) },
      { weight: 2, arbitrary: hostileString },
    );
  const pair = (name: string) =>
    valueOf(name).map((value) => `${encodeURIComponent(name)}=${encodeSegment(value)}`);
  const documented = fc
    .tuple(
      ...names.map((name) =>
        fc.option(
          fc.oneof(
            { weight: 5, arbitrary: pair(name) },
            // The same parameter twice: frameworks hand the handler an array.
            {
              weight: 1,
              arbitrary: fc.tuple(pair(name), pair(name)).map((both) => both.join('&')),
            },
            { weight: 1, arbitrary: fc.constant(name) },
          ),
          { freq: 3 },
        ),
      ),
    )
    .map((pairs) => pairs.filter((part): part is string => part !== null));
  const junk = fc.array(
    fc.oneof(
      fc.constantFrom(
        '__proto__[polluted]=1',
        'constructor.prototype.x=1',
        'a[b][c]=d',
        '%zz=1',
        '=',
        '&&',
        'lang=%ED%A0%80',
        'x=%00',
      ),
      fc
        .tuple(hostileString, hostileString)
        .map(([k, v]) => `${encodeSegment(k)}=${encodeSegment(v)}`),
    ),
    { maxLength: 2 },
  );
  return fc.tuple(documented, junk, fc.boolean()).map(([known, extra, withMark]) => {
    const all = [...known, ...extra];
    return all.length > 0 ? `?${all.join('&')}` : withMark ? '?' : '';
  });
}

/** The x-api-key headers of a request: mostly the merchant's test key, every other case too. */
function keyHeaders(world: World, needsKey: boolean): fc.Arbitrary<[string, string][]> {
  const one = (value: string): [string, string][] => [['x-api-key', value]];
  const valid = world.keys.test;
  return fc.oneof(
    { weight: needsKey ? 14 : 2, arbitrary: fc.constant(one(valid)) },
    { weight: 2, arbitrary: fc.constant(one(world.keys.live)) },
    { weight: 1, arbitrary: fc.constant(one(world.keys.inactive)) },
    { weight: 1, arbitrary: fc.constant(one(world.keys.revoked)) },
    { weight: needsKey ? 2 : 8, arbitrary: fc.constant<[string, string][]>([]) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<[string, string][]>(
        [...one(valid), ...one(valid)],
        [...one(valid), ...one('pk_test_wrong')],
        one(''),
        one(' '),
        one(` ${valid} `),
        one(valid.toUpperCase()),
        one(valid.slice(0, -1)),
        one(`${valid}\u0000`),
        one(valid.replace('pk_test_', 'pk_live_')),
        one('pk_test_' + 'A'.repeat(10_000)),
        // CR/LF: only the raw socket writes these; the parser must refuse, not crash.
        one(`${valid}\r\nx-injected: 1`),
        one(`bad\nx-api-key: ${valid}`),
        one(`${valid}\r`),
        [['X-API-KEY', valid]],
        [['x-api-key ', valid]],
      ),
    },
    { weight: 2, arbitrary: hostileString.map((text) => one(`pk_test_${text}`)) },
    { weight: 1, arbitrary: hostileString.map(one) },
  );
}

/** Headers beyond the key: tracing, proxies, languages, a huge one, injection attempts. */
const extraHeaders: fc.Arbitrary<[string, string][]> = fc.array(
  fc.oneof(
    fc.constantFrom<[string, string]>(
      ['traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'],
      ['traceparent', '00-00000000000000000000000000000000-0000000000000000-01'],
      ['traceparent', 'ff-zz-zz-zz'],
      ['traceparent', '00-' + 'a'.repeat(5000)],
      ['tracestate', 'a=b,'.repeat(200)],
      ['x-forwarded-for', '127.0.0.1, ::1, not-an-ip'],
      ['x-forwarded-for', '\u0000'],
      ['x-forwarded-proto', 'javascript'],
      ['accept-language', 'ar-DZ,ar;q=0.9'],
      ['accept', 'text/html'],
      ['accept', 'application/xml'],
      ['accept-encoding', 'gzip, br, zstd'],
      ['cookie', 'a=b; '.repeat(100)],
      ['x-huge', 'h'.repeat(20_000)],
      ['x-many', 'v'],
      ['x-note', 'a\r\nx-api-key: pk_test_injected'],
      ['x-note', 'a\nb'],
      ['x-note', 'ال\u202eعربية'],
      ['x bad name', '1'],
      ['expect', '100-continue'],
      ['connection', 'upgrade'],
      ['upgrade', 'websocket'],
      ['range', 'bytes=0-1,1-2,2-3'],
      ['if-none-match', '*'],
    ),
    hostileString.map((value): [string, string] => ['x-fuzz', value]),
  ),
  { maxLength: 2 },
);

const JSON_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json;;;',
  'application/vnd.api+json',
  'application/json, text/plain',
];
const OTHER_TYPES = [
  'application/x-www-form-urlencoded',
  'text/plain',
  'text/html',
  'multipart/form-data; boundary=fuzz',
  'multipart/form-data',
  'application/octet-stream',
  '*/*',
  'application/xml',
  '',
  'json',
];

const multipartOf = (fields: Record<string, unknown>) =>
  Object.entries(fields)
    .map(
      ([name, value]) =>
        `--fuzz\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${String(JSON.stringify(value))}\r\n`,
    )
    .join('') + '--fuzz--\r\n';

const formOf = (fields: Record<string, unknown>) =>
  Object.entries(fields)
    .map(
      ([name, value]) =>
        `${encodeSegment(name)}=${encodeSegment(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''))}`,
    )
    .join('&');

type BodyPart = { contentType: string | null; body: FuzzBody | undefined };

/** Bodies for a JSON operation: schema-valid, near-valid, hostile text, the wrong type. */
function jsonBodyArbitrary(schema: JsonSchema, document: OpenApiDocument, world: World) {
  const valid = schemaArbitrary(schema, document.components.schemas, bodyHints(world));
  const jsonType = fc.oneof(
    { weight: 6, arbitrary: fc.constant('application/json') },
    fc.constantFrom(...JSON_TYPES),
  );
  const json = (value: fc.Arbitrary<unknown>) =>
    fc.tuple(jsonType, value).map(([contentType, body]): BodyPart => ({
      contentType,
      body: { text: JSON.stringify(body) ?? '' },
    }));
  return fc.oneof(
    { weight: 4, arbitrary: json(valid) },
    { weight: 4, arbitrary: json(nearValid(valid)) },
    { weight: 1, arbitrary: json(hostileJson) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(jsonType, hostileJsonText)
        .map(([contentType, body]): BodyPart => ({ contentType, body })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, fc.nat(), hostileJson).map(([value, pick, other]): BodyPart => ({
        contentType: 'application/json',
        body: { text: withDuplicateKey(value, pick, other) },
      })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...OTHER_TYPES), valid)
        .map(([contentType, value]): BodyPart => {
          const fields =
            typeof value === 'object' && value !== null
              ? (value as Record<string, unknown>)
              : { value };
          const text = contentType.startsWith('multipart')
            ? multipartOf(fields)
            : contentType.includes('urlencoded')
              ? formOf(fields)
              : JSON.stringify(value);
          return { contentType: contentType === '' ? null : contentType, body: { text } };
        }),
    },
    { weight: 1, arbitrary: fc.constant<BodyPart>({ contentType: null, body: undefined }) },
    {
      weight: 1,
      arbitrary: fc.constant<BodyPart>({ contentType: 'application/json', body: undefined }),
    },
  );
}

/** Bodies for the payer pages' forms (`choice` on /qr): the field, its edges, other types. */
function formBodyArbitrary(): fc.Arbitrary<BodyPart> {
  const form = 'application/x-www-form-urlencoded';
  const choice = fc.oneof(
    fc.constantFrom(
      '0',
      '1',
      '2',
      '3',
      '-1',
      '',
      '1e309',
      '-0',
      '0x1',
      '1.5',
      'NaN',
      '__proto__',
      'length',
      ' 0',
    ),
    hostileString,
  );
  return fc.oneof(
    {
      weight: 4,
      arbitrary: choice.map((value): BodyPart => ({
        contentType: form,
        body: { text: `choice=${encodeSegment(value)}` },
      })),
    },
    { weight: 2, arbitrary: fc.constant<BodyPart>({ contentType: form, body: { text: '' } }) },
    { weight: 1, arbitrary: fc.constant<BodyPart>({ contentType: null, body: undefined }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<BodyPart>(
        { contentType: form, body: { text: 'choice=0&choice=1' } },
        { contentType: form, body: { text: 'choice=%zz' } },
        { contentType: form, body: { text: '%ED%A0%80=1&choice=%ED%A0%80' } },
        { contentType: form, body: { text: 'choice[]=0' } },
        { contentType: 'application/json', body: { text: '{"choice":0}' } },
        { contentType: 'application/json', body: { text: '{"choice":' } },
        { contentType: 'text/plain', body: { text: 'choice=0' } },
        {
          contentType: 'multipart/form-data; boundary=fuzz',
          body: { text: multipartOf({ choice: 0 }) },
        },
        { contentType: form, body: { repeat: 'choice=0&', times: 1_200_000 } },
        { contentType: `${form}; charset=utf-16`, body: { text: 'choice=0' } },
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...JSON_TYPES, ...OTHER_TYPES), hostileJsonText)
        .map(([contentType, body]): BodyPart => ({ contentType: contentType || null, body })),
    },
  );
}

/** Routes without a request body still get one now and then. */
const strayBodyArbitrary: fc.Arbitrary<BodyPart> = fc.oneof(
  { weight: 8, arbitrary: fc.constant<BodyPart>({ contentType: null, body: undefined }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...JSON_TYPES, ...OTHER_TYPES), hostileJsonText)
      .map(([contentType, body]): BodyPart => ({ contentType: contentType || null, body })),
  },
  {
    weight: 1,
    arbitrary: hostileJson.map((value): BodyPart => ({
      contentType: 'application/json',
      body: { text: JSON.stringify(value) ?? '' },
    })),
  },
);

function bodyFor(
  route: RouteTarget,
  document: OpenApiDocument,
  world: World,
): fc.Arbitrary<BodyPart> {
  const content = route.operation?.requestBody?.content ?? {};
  const schema = content['application/json']?.schema;
  if (schema && route.method !== 'HEAD') return jsonBodyArbitrary(schema, document, world);
  if (content['application/x-www-form-urlencoded'] && route.method !== 'HEAD')
    return formBodyArbitrary();
  return strayBodyArbitrary;
}

function idempotencyHeaders(route: RouteTarget): fc.Arbitrary<[string, string][]> {
  const documented = route.operation?.parameters?.some(
    (parameter) => parameter.name === 'Idempotency-Key',
  );
  if (!documented) return fc.constant<[string, string][]>([]);
  const one = (value: string): [string, string][] => [['idempotency-key', value]];
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant<[string, string][]>([]) },
    { weight: 3, arbitrary: fc.uuid().map(one) },
    { weight: 1, arbitrary: fc.constantFrom('fixed-key-1', 'fixed-key-2').map(one) },
    { weight: 2, arbitrary: hostileString.map(one) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<[string, string][]>(
        [...one('a'), ...one('b')],
        one('k'.repeat(256)),
        one(''),
        one('k'.repeat(9_000)),
      ),
    },
  );
}

/** A request aimed at one registered route; sometimes with another method. */
function requestFor(
  route: RouteTarget,
  document: OpenApiDocument,
  world: World,
): fc.Arbitrary<FuzzRequest> {
  const needsKey = (route.operation?.security?.length ?? 0) > 0;
  const method = fc.oneof(
    { weight: 12, arbitrary: fc.constant(route.method) },
    { weight: 1, arbitrary: fc.constantFrom(...HTTP_METHODS, 'get', 'BREW', 'CONNECT') },
  );
  return fc
    .record({
      method,
      path: pathArbitrary(route, world),
      query: queryArbitrary(route, world),
      keys: keyHeaders(world, needsKey),
      idempotency: idempotencyHeaders(route),
      extra: extraHeaders,
      part: bodyFor(route, document, world),
    })
    .map(({ method: verb, path, query, keys, idempotency, extra, part }) => {
      const headers: [string, string][] = [...keys, ...idempotency, ...extra];
      if (part.contentType !== null) headers.push(['content-type', part.contentType]);
      return {
        route: routeLabel(route),
        method: verb,
        target: path + query,
        headers,
        ...(part.body ? { body: part.body } : {}),
      };
    });
}

/** Requests to no route at all: the not-found answer must be the envelope too. */
const strayRequest: fc.Arbitrary<FuzzRequest> = fc
  .tuple(
    fc.constantFrom('GET', 'POST', 'HEAD', 'DELETE', 'OPTIONS'),
    fc.oneof(
      fc.constantFrom(
        '/',
        '//',
        '/api',
        '/api/v1/payments/',
        '/api/v1/payments//refund',
        '/api/v1/payments/%2e%2e/%2e%2e/docs/json',
        '/checkout/',
        '/qr/',
        '/pay/',
        '/partner/payments/v1/',
        '/..',
        '/../../etc/passwd',
        '/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
        '/docs/../package.json',
        '/docs/static/..%2f..%2f..%2fpackage.json',
        '*',
        'http://evil.example/api/v1/payments',
        '/\u0000',
        '/%00',
        '/%ED%A0%80',
        '/%zz',
        '/' + 'a'.repeat(9000),
      ),
      hostileString.map((text) => `/${encodeSegment(text)}`),
      fc.constantFrom(...HOSTILE_STRINGS).map((text) => `/${text}`),
    ),
  )
  .map(([method, target]) => ({ route: 'unrouted', method, target, headers: [] }));

/** Every registered route (and none) with equal chances, then a request for it. */
export function requestArbitrary(
  routes: readonly RouteTarget[],
  document: OpenApiDocument,
  world: World,
): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(...routes.map((route) => requestFor(route, document, world)), strayRequest);
}
