// Writes the webhook signature test vectors every dzpay SDK (Node, PHP, Python) must pass:
//
//   node sdks/vectors/generate.ts > sdks/signature-vectors.json
//
// The valid vectors are requests the webhook dispatcher itself signs: its attemptDelivery,
// given a partner directory of one endpoint and an HTTP client that only records the
// request, so the headers are the ones dzpay sends, named and valued as it sends them.
// Their bodies are made by the dispatcher's webhookOf / testWebhookOf, or written here
// byte for byte when a vector needs bytes a re-serialisation would change. Each invalid
// vector is a valid one with one thing changed. No clock, no randomness: the same output
// on every run (libs/partner-sdk/test/signature-vectors.unit.test.ts checks the file is
// this output). See sdks/README.md.
import { createHash, createHmac } from 'node:crypto';
import { PaymentEvent, type PaymentEventType } from '@dzpay/contracts';
import type { PartnerDirectory, PartnerHttpClient, WebhookTarget } from '@dzpay/platform';
import { format, resolveConfig } from 'prettier';
import { attemptDelivery } from '../../services/webhook-dispatcher/src/handlers/attempt.ts';
import {
  testWebhookOf,
  webhookOf,
  type WebhookOf,
} from '../../services/webhook-dispatcher/src/domain/webhook-body.ts';

type Reason =
  | 'bad-signature'
  | 'stale'
  | 'future'
  | 'missing-header'
  | 'duplicate-header'
  | 'malformed-header'
  | 'malformed-body';

/** Header name to value; an array is a header sent on several lines, one value each. */
type Headers = Record<string, string | string[]>;

interface Vector {
  name: string;
  secret: string;
  headers: Headers;
  rawBody: string;
  now: number;
  toleranceSeconds: number;
  expect: { valid: true } | { valid: false; reason: Reason };
}

/** A webhook as the dispatcher stores it: its event id, type and the exact body bytes. */
interface Delivery {
  eventId: string;
  eventType: WebhookOf['type'];
  body: string;
}

/** When the dispatcher signs (the timestamp of docs/webhooks.md's worked example). */
const T = 1741944413;
const TOLERANCE = 300;
/** The partner's clock when a request arrives: two seconds after it was signed. */
const ARRIVED = T + 2;

/** A secret as dzpay makes them now: `whsec_` and base64 of 32 bytes (here not random). */
const whsec = (label: string) =>
  `whsec_${createHash('sha256').update(`dzpay signature vectors: ${label}`).digest('base64')}`;
/** A secret set by an operator before `whsec_` secrets: keyed by its UTF-8 bytes in both schemes. */
const LEGACY = 'partner-signing-secret';
const CURRENT = whsec('current secret');
const PREVIOUS = whsec('previous secret');
const STRANGER = whsec("another merchant's secret");
const API_SECRET = 'partner-api-secret-for-vectors';

/** The headers dzpay sends for one attempt, captured from the dispatcher's own attempt code. */
async function dzpaySends(
  delivery: Delivery,
  signedAt: number,
  secrets: { signingSecret: string; standardSecrets: string[] },
): Promise<Record<string, string>> {
  const target: WebhookTarget = {
    apiUrl: 'https://partner.example',
    apiSecret: API_SECRET,
    webhookUrl: null,
    events: ['payment.success', 'payment.fail', 'payment.refunded'],
    signingSecret: secrets.signingSecret,
    standardSecrets: secrets.standardSecrets,
    version: 1,
  };
  const directory: PartnerDirectory = {
    lookup: () => Promise.resolve(null),
    webhookTarget: () => Promise.resolve(target),
  };
  let sent: Record<string, string> | undefined;
  const client: PartnerHttpClient = {
    request: (request) => {
      if (request.body !== delivery.body) throw new Error('the dispatcher sent other bytes');
      sent = request.headers;
      return Promise.resolve({
        status: 200,
        headers: {},
        body: Buffer.from('{"success":true}'),
        truncated: false,
      });
    },
    close: () => undefined,
  };
  const result = await attemptDelivery(
    { directory, client, timeoutMs: 15_000, clock: () => new Date(signedAt * 1000) },
    {
      id: 'delivery-for-vectors',
      eventId: delivery.eventId,
      merchantId: '11111111-2222-4333-8444-555555555555',
      mode: 'test',
      paymentId: null,
      reference: null,
      channel: null,
      eventType: delivery.eventType,
      body: delivery.body,
      attempts: 0,
      scheduleBase: 0,
      traceCarrier: {},
    },
    new AbortController().signal,
  );
  if (sent === undefined || result?.verdict.kind !== 'delivered') {
    throw new Error(`the dispatcher did not send the webhook: ${result?.error ?? 'abandoned'}`);
  }
  return sent;
}

/** A payment event as payments publishes it, made into a webhook by the dispatcher's webhookOf. */
function paymentWebhook(
  id: string,
  type: PaymentEventType,
  data: Partial<PaymentEvent['data']>,
  refundAmount?: number,
): Delivery {
  const event = PaymentEvent.parse({
    id,
    type,
    version: 1,
    occurredAt: '2025-03-14T09:26:53.000Z',
    merchantId: '11111111-2222-4333-8444-555555555555',
    mode: 'test',
    data: {
      paymentId: '5d1f0c2e-8b4a-4c7e-a1f3-6e2b9d0c4a71',
      reference: 'BOOK-42',
      channel: 'AGENCY',
      amount: 150_050,
      fees: 5_000,
      total: 155_050,
      currency: 'DZD',
      status: 'success',
      orderId: '7f3c2a10-4e5b-4b8e-9d61-0c1a2b3c4d5e',
      approvalCode: null,
      maskedPan: null,
      failureReason: null,
      refundedAmount: 0,
      paidAt: '2025-03-14T09:26:52.000Z',
      metadata: null,
      ...data,
    },
  });
  const webhook = webhookOf(event, refundAmount);
  if (webhook === null) throw new Error(`${type} is no webhook`);
  return { eventId: id, eventType: webhook.type, body: webhook.body };
}

// The bodies. -------------------------------------------------------------------------

/** docs/webhooks.md's worked example, byte for byte. */
const docsExample: Delivery = {
  eventId: '0b7e5c1a-3f1e-4d8a-9a65-2f1d7c3e9b10',
  eventType: 'payment.success',
  body: '{"id":"0b7e5c1a-3f1e-4d8a-9a65-2f1d7c3e9b10","type":"payment.success","createdAt":"2025-03-14T09:26:53.000Z","data":{"paymentId":"5d1f0c2e-8b4a-4c7e-a1f3-6e2b9d0c4a71","reference":"BOOK-42","channel":"AGENCY","amount":1500.5,"currency":"DZD","status":"success","orderId":"7f3c2a10-4e5b-4b8e-9d61-0c1a2b3c4d5e","paidAt":"2025-03-14T09:26:52.000Z","metadata":null,"failureReason":null}}',
};

/** Non-ASCII as dzpay sends it (raw UTF-8): Arabic, French, a 4-byte emoji, a raw U+2028. */
const unicodeSuccess = paymentWebhook('a3c1e2d4-5b6f-4a7b-8c9d-0e1f2a3b4c5d', 'payment.succeeded', {
  reference: 'LIVRE-٤٢',
  metadata: {
    client: 'محمد الأمين بن علي',
    adresse: 'Rue Larbi Ben M’hidi, Alger',
    note: 'Crème brûlée — café offert',
    lignes: 'première ligne\u2028deuxième ligne',
    produit: 'https://boutique.example/produits/كتاب',
    drapeau: '🇩🇿',
  },
});

const frenchFailure = paymentWebhook('c5e3a4f6-7d8b-4c9d-8e1f-2a3b4c5d6e7f', 'payment.failed', {
  reference: 'CMD-2025-0042',
  channel: 'CHECKOUT',
  status: 'failed',
  failureReason: 'Carte refusée : fonds insuffisants',
  paidAt: null,
  metadata: { panier: 'c-17', remarque: 'Réessayer après-demain' },
});

const refund = paymentWebhook(
  'd6f4b5a7-8e9c-4dae-9f2a-3b4c5d6e7f80',
  'payment.refunded',
  { status: 'refunded', refundedAmount: 50_000 },
  50_000,
);

const testEvent: Delivery = {
  eventId: '9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f',
  eventType: 'webhook.test',
  body: testWebhookOf('9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f', new Date((T - 7) * 1000)).body,
};

/**
 * Bytes a JSON re-serialisation changes (dzpay does not write bodies this way, but a
 * verifier must take whatever bytes arrive): indentation, a trailing newline, data before
 * id, `1500.50`, escaped `\u00e9`, escaped `\u2028`, escaped slashes, raw Arabic.
 */
const prettyBody: Delivery = {
  eventId: 'e7a5c6b8-9fad-4ebf-8a3b-4c5d6e7f8091',
  eventType: 'payment.success',
  body: `${String.raw`{
    "data": {
        "metadata": {
            "note": "Cr\u00e8me br\u00fbl\u00e9e \u2014 caf\u00e9",
            "lignes": "avant\u2028apr\u00e8s",
            "client": "محمد",
            "url": "https:\/\/boutique.example\/produits\/42"
        },
        "amount": 1500.50,
        "currency": "DZD",
        "paymentId": "5d1f0c2e-8b4a-4c7e-a1f3-6e2b9d0c4a71",
        "reference": "BOOK-42",
        "channel": "AGENCY",
        "status": "success",
        "orderId": "7f3c2a10-4e5b-4b8e-9d61-0c1a2b3c4d5e",
        "paidAt": "2025-03-14T09:26:52.000Z",
        "failureReason": null
    },
    "type": "payment.success",
    "id": "e7a5c6b8-9fad-4ebf-8a3b-4c5d6e7f8091",
    "createdAt": "2025-03-14T09:26:53.000Z"
}`}\n`,
};

/** Signed like any webhook, but no dzpay event. */
const notAnEvent: Delivery = {
  eventId: 'f8b6d7c9-a0be-4fc0-9b4c-5d6e7f8091a2',
  eventType: 'payment.success',
  body: '{"hello":"world"}',
};

// Re-serialisations, as common JSON libraries write a parsed body back. -----------------

interface JsonStyle {
  itemSeparator: string;
  keySeparator: string;
  /** Everything above U+007F as `\uXXXX` (UTF-16 units). */
  asciiOnly: boolean;
  /** `/` as `\/`. */
  escapeSlash: boolean;
}

function serialise(value: unknown, style: JsonStyle): string {
  if (Array.isArray(value)) {
    return `[${value.map((item) => serialise(item, style)).join(style.itemSeparator)}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(
      ([key, item]) => `${serialise(key, style)}${style.keySeparator}${serialise(item, style)}`,
    );
    return `{${entries.join(style.itemSeparator)}}`;
  }
  let text = JSON.stringify(value);
  if (typeof value !== 'string') return text;
  if (style.asciiOnly) {
    text = text.replace(
      /[\u0080-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  }
  return style.escapeSlash ? text.replaceAll('/', '\\/') : text;
}

const reserialised = {
  /** JSON.parse then JSON.stringify (JavaScript, and most "parse then verify" middleware). */
  javascript: (body: string) => JSON.stringify(JSON.parse(body)),
  /** Python's json.dumps defaults: `", "`, `": "`, ensure_ascii. */
  python: (body: string) =>
    serialise(JSON.parse(body), {
      itemSeparator: ', ',
      keySeparator: ': ',
      asciiOnly: true,
      escapeSlash: false,
    }),
  /** PHP's json_encode defaults: `\uXXXX` for non-ASCII, `\/` for slashes. */
  php: (body: string) =>
    serialise(JSON.parse(body), {
      itemSeparator: ',',
      keySeparator: ':',
      asciiOnly: true,
      escapeSlash: true,
    }),
};

// Header helpers. ---------------------------------------------------------------------

const X_SCHEME = ['x-timestamp', 'x-signature'];
const STANDARD_SCHEME = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];

function without(headers: Headers, ...names: string[]): Headers {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name)));
}
/** Only dzpay's X-Signature scheme: the Standard Webhooks headers left out. */
const xOnly = (headers: Headers) => without(headers, ...STANDARD_SCHEME);
/** Only the Standard Webhooks scheme: X-Timestamp and X-Signature left out. */
const standardOnly = (headers: Headers) => without(headers, ...X_SCHEME);
const withHeader = (headers: Headers, name: string, value: string | string[]): Headers => ({
  ...headers,
  [name]: value,
});
function single(headers: Headers, name: string): string {
  const value = headers[name];
  if (typeof value !== 'string') throw new Error(`no single ${name} header`);
  return value;
}

// The vectors. ------------------------------------------------------------------------

/** What a vector changes in the request it is made from. */
interface Change {
  secret?: string;
  headers?: Headers;
  rawBody?: string;
  now?: number;
  toleranceSeconds?: number;
}

async function vectors(): Promise<Vector[]> {
  const out: Vector[] = [];
  /** Vectors made from one request: its headers and body, held by the partner with `secret`. */
  const from =
    (secret: string, headers: Headers, delivery: Delivery, now = ARRIVED) =>
    (name: string, expect: Reason | 'valid', change: Change = {}) => {
      out.push({
        name,
        secret: change.secret ?? secret,
        headers: change.headers ?? headers,
        rawBody: change.rawBody ?? delivery.body,
        now: change.now ?? now,
        toleranceSeconds: change.toleranceSeconds ?? TOLERANCE,
        expect: expect === 'valid' ? { valid: true } : { valid: false, reason: expect },
      });
    };
  const current = { signingSecret: CURRENT, standardSecrets: [CURRENT] };

  const docs = await dzpaySends(docsExample, T, {
    signingSecret: LEGACY,
    standardSecrets: [LEGACY],
  });
  const unicode = await dzpaySends(unicodeSuccess, T, current);
  const failure = await dzpaySends(frenchFailure, T, current);
  const refunded = await dzpaySends(refund, T, current);
  const test = await dzpaySends(testEvent, T, current);
  const pretty = await dzpaySends(prettyBody, T, current);
  const junk = await dzpaySends(notAnEvent, T, current);
  const stranger = await dzpaySends(frenchFailure, T, {
    signingSecret: STRANGER,
    standardSecrets: [STRANGER],
  });
  // A rotation's grace period: X-Signature with the new secret, webhook-signature with both.
  const rotating = await dzpaySends(frenchFailure, T, {
    signingSecret: CURRENT,
    standardSecrets: [CURRENT, PREVIOUS],
  });

  const docsVector = from(LEGACY, docs, docsExample, T);
  const unicodeVector = from(CURRENT, unicode, unicodeSuccess);
  const failureVector = from(CURRENT, failure, frenchFailure);
  const prettyVector = from(CURRENT, pretty, prettyBody);
  const rotatingVector = from(CURRENT, rotating, frenchFailure);

  // Valid: as dzpay sends them, both schemes.
  docsVector('valid: the worked example of docs/webhooks.md (non-whsec secret)', 'valid');
  unicodeVector(
    'valid: payment.success with Arabic, French, an emoji and a raw U+2028 (whsec secret)',
    'valid',
  );
  failureVector('valid: payment.fail of a hosted checkout, French accents', 'valid');
  from(CURRENT, refunded, refund)('valid: payment.refunded', 'valid');
  from(CURRENT, test, testEvent)('valid: webhook.test', 'valid');
  prettyVector(
    'valid: indented body with escaped \\u00e9, \\u2028 and \\/, 1500.50, data before id, trailing newline',
    'valid',
  );

  // Valid: one scheme alone (the other's headers stripped, as a proxy might).
  unicodeVector('one scheme: X-Signature alone, whsec secret keyed as its UTF-8 text', 'valid', {
    headers: xOnly(unicode),
  });
  unicodeVector(
    'one scheme: webhook-signature alone, whsec secret keyed as its base64-decoded bytes',
    'valid',
    { headers: standardOnly(unicode) },
  );
  docsVector('one scheme: X-Signature alone, non-whsec secret', 'valid', { headers: xOnly(docs) });
  docsVector(
    'one scheme: webhook-signature alone, non-whsec secret keyed as its UTF-8 text',
    'valid',
    {
      headers: standardOnly(docs),
    },
  );
  prettyVector('one scheme: X-Signature alone on the indented, escaped body', 'valid', {
    headers: xOnly(pretty),
  });
  prettyVector('one scheme: webhook-signature alone on the indented, escaped body', 'valid', {
    headers: standardOnly(pretty),
  });
  failureVector('headers: names in another case (header names are case-insensitive)', 'valid', {
    headers: Object.fromEntries(
      Object.entries(failure).map(([name, value]) => [canonicalCase(name), value]),
    ),
  });
  const sig = single(failure, 'x-signature');
  failureVector('headers: X-Signature in upper-case hex, X-Signature alone', 'valid', {
    headers: withHeader(xOnly(failure), 'x-signature', sig.toUpperCase()),
  });

  // Rotation: several webhook-signature entries, one per secret in its grace period.
  rotatingVector('rotation: partner holds the new secret', 'valid');
  rotatingVector(
    'rotation: partner holds only the old secret (X-Signature fails, the second webhook-signature entry matches)',
    'valid',
    { secret: PREVIOUS },
  );
  rotatingVector('rotation: partner holds only the old secret, webhook-signature alone', 'valid', {
    secret: PREVIOUS,
    headers: standardOnly(rotating),
  });
  rotatingVector(
    'rotation: partner holds only the old secret, X-Signature alone (made with the new secret only)',
    'bad-signature',
    { secret: PREVIOUS, headers: xOnly(rotating) },
  );
  failureVector(
    'rotation: after the grace period, partner holds only the old secret',
    'bad-signature',
    { secret: PREVIOUS },
  );

  // webhook-signature entries.
  const good = single(failure, 'webhook-signature');
  const entries = (value: string) => ({
    headers: standardOnly(withHeader(failure, 'webhook-signature', value)),
  });
  failureVector(
    'webhook-signature: an entry of another version and one that is not v1,<base64> are skipped before the match',
    'valid',
    entries(`v2,${good.slice(3)} v1,not+base64 ${good}`),
  );
  failureVector(
    'webhook-signature: the matching digest labelled v2 does not count',
    'bad-signature',
    entries(`v2,${good.slice(3)}`),
  );
  failureVector(
    'webhook-signature: the matching digest without its v1, label does not count',
    'bad-signature',
    entries(good.slice(3)),
  );
  failureVector(
    'webhook-signature: the matching digest without its base64 padding does not count',
    'bad-signature',
    entries(good.replace(/=$/, '')),
  );
  failureVector(
    'webhook-signature: only entries of other secrets',
    'bad-signature',
    entries(
      `${single(stranger, 'webhook-signature')} ${single(rotating, 'webhook-signature').split(' ')[1]}`,
    ),
  );

  // Body: the signed bytes changed.
  docsVector('body: one byte changed (amount 1500.5 to 1500.6)', 'bad-signature', {
    rawBody: docsExample.body.replace('1500.5', '1500.6'),
  });
  unicodeVector('body: one Arabic letter changed', 'bad-signature', {
    rawBody: unicodeSuccess.body.replace('محمد', 'محمود'),
  });
  docsVector('body: a trailing newline added', 'bad-signature', {
    rawBody: `${docsExample.body}\n`,
  });
  failureVector(
    'body: accents in Unicode NFD instead of the NFC that was signed',
    'bad-signature',
    {
      rawBody: frenchFailure.body.normalize('NFD'),
    },
  );
  prettyVector(
    'body: the indented body re-serialised by JSON.parse and JSON.stringify',
    'bad-signature',
    {
      rawBody: reserialised.javascript(prettyBody.body),
    },
  );
  unicodeVector("body: re-serialised with Python's json.dumps defaults", 'bad-signature', {
    rawBody: reserialised.python(unicodeSuccess.body),
  });
  unicodeVector("body: re-serialised with PHP's json_encode defaults", 'bad-signature', {
    rawBody: reserialised.php(unicodeSuccess.body),
  });
  failureVector('body: re-serialised with json_encode, X-Signature alone', 'bad-signature', {
    headers: xOnly(failure),
    rawBody: reserialised.php(frenchFailure.body),
  });
  from(
    CURRENT,
    junk,
    notAnEvent,
  )('body: signed, but not a dzpay event (checked after the signature)', 'malformed-body');

  // Secret.
  unicodeVector("secret: the partner holds another merchant's secret", 'bad-signature', {
    secret: STRANGER,
  });
  docsVector(
    'secret: the non-whsec secret of the docs with one character changed',
    'bad-signature',
    {
      secret: 'partner-signing-secreT',
    },
  );
  const standardKeyedAsText = `v1,${createHmac('sha256', CURRENT)
    .update(`${unicodeSuccess.eventId}.${T}.`)
    .update(unicodeSuccess.body)
    .digest('base64')}`;
  unicodeVector(
    'secret: webhook-signature keyed with the whsec_ text instead of its decoded bytes',
    'bad-signature',
    { headers: standardOnly(withHeader(unicode, 'webhook-signature', standardKeyedAsText)) },
  );
  const xKeyedAsBytes = createHmac('sha256', Buffer.from(CURRENT.slice('whsec_'.length), 'base64'))
    .update(unicodeSuccess.body)
    .update(String(T))
    .digest('hex');
  unicodeVector(
    'secret: X-Signature keyed with the decoded bytes of whsec_ instead of its text',
    'bad-signature',
    { headers: xOnly(withHeader(unicode, 'x-signature', xKeyedAsBytes)) },
  );

  // Clock: the tolerance is inclusive, either way; the timestamp and the id are signed.
  failureVector('clock: 300 s after the timestamp, tolerance 300 (just inside)', 'valid', {
    now: T + 300,
  });
  failureVector('clock: 301 s after the timestamp, tolerance 300 (just outside)', 'stale', {
    now: T + 301,
  });
  failureVector('clock: 300 s before the timestamp, tolerance 300 (just inside)', 'valid', {
    now: T - 300,
  });
  failureVector('clock: 301 s before the timestamp, tolerance 300 (just outside)', 'future', {
    now: T - 301,
  });
  failureVector('clock: 301 s after, X-Signature alone', 'stale', {
    now: T + 301,
    headers: xOnly(failure),
  });
  failureVector('clock: 301 s after, webhook-signature alone', 'stale', {
    now: T + 301,
    headers: standardOnly(failure),
  });
  failureVector('clock: 301 s before, webhook-signature alone', 'future', {
    now: T - 301,
    headers: standardOnly(failure),
  });
  failureVector('clock: 60 s after, tolerance 60 (just inside)', 'valid', {
    now: T + 60,
    toleranceSeconds: 60,
  });
  failureVector('clock: 61 s after, tolerance 60 (just outside)', 'stale', {
    now: T + 61,
    toleranceSeconds: 60,
  });
  failureVector('clock: tolerance 0, same second', 'valid', { now: T, toleranceSeconds: 0 });
  docsVector('clock: the worked example replayed a day later', 'stale', { now: T + 86_400 });
  failureVector(
    'clock: timestamps moved one second on, signatures kept (the timestamp is signed)',
    'bad-signature',
    {
      now: T + 1,
      headers: { ...failure, 'x-timestamp': String(T + 1), 'webhook-timestamp': String(T + 1) },
    },
  );
  failureVector(
    'headers: webhook-id of another event, signature kept (the id is signed)',
    'bad-signature',
    { headers: standardOnly(withHeader(failure, 'webhook-id', unicodeSuccess.eventId)) },
  );

  // Headers: missing, duplicated, malformed.
  const missing = (...names: string[]) => ({ headers: without(failure, ...names) });
  failureVector(
    'headers: no signature header at all',
    'missing-header',
    missing(...X_SCHEME, ...STANDARD_SCHEME),
  );
  failureVector(
    'headers: X-Timestamp alone',
    'missing-header',
    missing('x-signature', ...STANDARD_SCHEME),
  );
  failureVector(
    'headers: X-Signature alone, no X-Timestamp',
    'missing-header',
    missing('x-timestamp', ...STANDARD_SCHEME),
  );
  for (const name of STANDARD_SCHEME) {
    failureVector(
      `headers: Standard Webhooks without ${name}`,
      'missing-header',
      missing(name, ...X_SCHEME),
    );
  }
  failureVector('headers: X-Signature empty', 'missing-header', {
    headers: withHeader(xOnly(failure), 'x-signature', ''),
  });
  failureVector(
    'headers: X-Signature missing, webhook-signature carries the request',
    'valid',
    missing('x-signature'),
  );
  failureVector(
    'headers: webhook-signature missing, X-Signature carries the request',
    'valid',
    missing('webhook-signature'),
  );
  const ts = single(failure, 'x-timestamp');
  failureVector('headers: X-Timestamp sent twice, same value', 'duplicate-header', {
    headers: withHeader(xOnly(failure), 'x-timestamp', [ts, ts]),
  });
  failureVector('headers: X-Signature sent twice, one matching', 'duplicate-header', {
    headers: withHeader(xOnly(failure), 'x-signature', [sig, '0'.repeat(64)]),
  });
  rotatingVector(
    'headers: webhook-signature sent on two lines, each a matching entry (dzpay sends one, space-separated)',
    'duplicate-header',
    {
      headers: withHeader(
        standardOnly(rotating),
        'webhook-signature',
        single(rotating, 'webhook-signature').split(' '),
      ),
    },
  );
  failureVector(
    'headers: X-Timestamp sent twice, the Standard Webhooks headers carry the request',
    'valid',
    { headers: withHeader(failure, 'x-timestamp', [ts, ts]) },
  );
  const timestamp = (name: string, value: string) => ({
    headers: withHeader(
      name === 'x-timestamp' ? xOnly(failure) : standardOnly(failure),
      name,
      value,
    ),
  });
  failureVector(
    'headers: X-Timestamp with a fraction',
    'malformed-header',
    timestamp('x-timestamp', `${ts}.0`),
  );
  failureVector(
    'headers: X-Timestamp in milliseconds',
    'malformed-header',
    timestamp('x-timestamp', `${ts}000`),
  );
  failureVector(
    'headers: X-Timestamp negative',
    'malformed-header',
    timestamp('x-timestamp', `-${ts}`),
  );
  failureVector(
    'headers: X-Timestamp as an ISO date',
    'malformed-header',
    timestamp('x-timestamp', '2025-03-14T09:26:53Z'),
  );
  failureVector(
    'headers: webhook-timestamp not a number',
    'malformed-header',
    timestamp('webhook-timestamp', 'now'),
  );
  failureVector('headers: X-Signature not hex (base64 of the right digest)', 'bad-signature', {
    headers: withHeader(xOnly(failure), 'x-signature', Buffer.from(sig, 'hex').toString('base64')),
  });
  failureVector('headers: X-Signature truncated to 32 hex digits', 'bad-signature', {
    headers: withHeader(xOnly(failure), 'x-signature', sig.slice(0, 32)),
  });
  failureVector(
    'headers: both schemes fail differently, the X-Signature scheme reason stands',
    'malformed-header',
    {
      headers: {
        ...failure,
        'x-timestamp': `${ts}.0`,
        'webhook-signature': single(stranger, 'webhook-signature'),
      },
    },
  );

  return out;
}

/** A header name as docs/webhooks.md writes it (`X-Signature`, `Webhook-Id`). */
function canonicalCase(name: string): string {
  return name.replace(
    /(^|-)([a-z])/g,
    (_, dash: string, letter: string) => dash + letter.toUpperCase(),
  );
}

const algorithmNotes = {
  'X-Signature':
    'hex(HMAC-SHA256(key = the secret exactly as the partner holds it, as UTF-8 (a whsec_ secret too, prefix included), message = raw body bytes followed by X-Timestamp as decimal ASCII, no separator)). Compare the decoded digest in constant time; hex is case-insensitive. Anything that is not 64 hex digits simply does not match.',
  'webhook-signature':
    "Standard Webhooks: space-separated entries \"v1,<base64 of HMAC-SHA256(key, webhook-id + '.' + webhook-timestamp + '.' + raw body bytes)>\". Key: a secret written whsec_<base64> is keyed with the base64-decoded bytes, any other secret with its UTF-8 bytes. The request verifies when any v1 entry matches; entries of other versions and entries that are not v1,<44 base64 characters> are skipped. dzpay sends one entry per valid secret during a rotation, while X-Signature uses the newest secret only.",
  schemes:
    'dzpay sends both schemes on every request. A request is valid when either scheme verifies (its headers present, its timestamp within the tolerance, its signature matching). When neither does, the reason is that of the X-Signature scheme if its two headers are present, else that of the Standard Webhooks scheme, else missing-header.',
  clock:
    'now is the verifier clock in unix seconds. A timestamp (X-Timestamp, webhook-timestamp) is 1 to 12 decimal digits of unix seconds; it is accepted when |now - timestamp| <= toleranceSeconds (inclusive). Too old is stale, too far ahead is future. The timestamp is checked before the signature.',
  headers:
    'Header names are case-insensitive. A header value that is an array was sent on several lines: such a header counts as duplicated (duplicate-header), never as the first or last value. An empty value counts as missing.',
  body: 'rawBody is a JSON string: decode this file with any JSON parser and encode the string as UTF-8 to get the exact bytes to verify. A body that itself holds a JSON escape (the six characters backslash, u, 2, 0, 2, 8) keeps it: only the escaping of this file is undone. Never parse and re-serialise a body before verifying it. malformed-body is the only reason given after a passing signature: the bytes verify but are not a dzpay event (an SDK that does not parse events may report that vector as signature-valid).',
  reasons:
    'bad-signature: headers present, timestamp in tolerance, no signature matches. stale / future: the timestamp is outside the tolerance, in the past / in the future. missing-header: a header of the scheme is absent or empty. duplicate-header: a header of the scheme was sent more than once. malformed-header: a timestamp that is not unix seconds. malformed-body: see body.',
};

const file = {
  description:
    'Webhook signature test vectors for dzpay SDKs (Node, PHP, Python): each vector is a request as dzpay sends it (or one changed from it), the secret the partner holds, the clock, and whether a verifier must accept it. Generated by sdks/vectors/generate.ts from the webhook dispatcher signing code; do not edit by hand. See sdks/README.md and docs/webhooks.md.',
  algorithmNotes,
  vectors: await vectors(),
};

// Invisible characters of the bodies (line separators, combining marks) are written as
// JSON escapes, so the file reads the same in every editor; the values do not change.
const text = JSON.stringify(file, null, 2).replace(
  /[\u0300-\u036f\u200b-\u200f\u2028\u2029\ufeff]/g,
  (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
);
const outputPath = new URL('../signature-vectors.json', import.meta.url).pathname;
const options = await resolveConfig(outputPath);
process.stdout.write(await format(text, { ...options, filepath: outputPath }));
