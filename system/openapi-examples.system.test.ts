import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARDS, payByHttp } from './support/payer.ts';
import { startStack, type Stack } from './support/stack.ts';

// The document's examples are what a developer copies into fixtures and mocks: each main
// operation's example is compared, field by field, with what the same stack answers
// (every field there and nothing else, the same types, the same formats of ids, times,
// masked card numbers, checkout tokens, and the limits the headers say).
const API_LIMIT = 40;

let stack: Stack;
let document: {
  paths: Record<string, Record<string, { responses: Record<string, Json> }>>;
};
type Json = Record<string, unknown>;

beforeAll(async () => {
  stack = await startStack(
    'openapi-examples',
    { RATE_LIMIT_PER_MINUTE: String(API_LIMIT) },
    { withPayments: true },
  );
  document = (await (await stack.get('/docs/json')).json()) as typeof document;
}, 120_000);
afterAll(() => stack?.stop());

function exampleOf(path: string, method: string, status: number): Json {
  const response = document.paths[path]![method]!.responses[String(status)] as {
    content: { 'application/json': { example: Json } };
  };
  return response.content['application/json'].example;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MASKED_PAN = /^\d{6}\*+\d{4}$/;

/** How a string is written, for the formats an example must share with real answers. */
function formOf(value: string): string {
  if (UUID.test(value)) return 'uuid';
  if (INSTANT.test(value)) return 'instant (ms, UTC)';
  if (MASKED_PAN.test(value)) return `masked PAN ${value.replace(/\d/g, '9')}`;
  if (/^https?:\/\//.test(value)) {
    // The path's shape: each segment's length where it is a token, else the segment.
    const segments = new URL(value).pathname.split('/').slice(1);
    return `url /${segments.map((segment) => (segment.length > 20 ? `<${segment.length} chars>` : segment)).join('/')}`;
  }
  return 'text';
}

/** Every difference of form between an example and a real answer, by field path. */
function differences(example: unknown, real: unknown, at = ''): string[] {
  if (example === null || real === null) return [];
  if (Array.isArray(example) && Array.isArray(real)) {
    return example.length > 0 && real.length > 0
      ? differences(example[0], real[0], `${at}[0]`)
      : [];
  }
  if (typeof example === 'object' && typeof real === 'object') {
    const left = Object.keys(example).sort();
    const right = Object.keys(real).sort();
    const problems = [
      ...left
        .filter((key) => !right.includes(key))
        .map((key) => `${at}.${key}: only in the example`),
      ...right
        .filter((key) => !left.includes(key))
        .map((key) => `${at}.${key}: missing from the example`),
    ];
    for (const key of left.filter((name) => right.includes(name))) {
      problems.push(...differences((example as Json)[key], (real as Json)[key], `${at}.${key}`));
    }
    return problems;
  }
  if (typeof example !== typeof real) return [`${at}: ${typeof example} vs ${typeof real}`];
  if (typeof example === 'number' && Number.isInteger(example) !== Number.isInteger(real)) {
    return [`${at}: ${example} vs ${JSON.stringify(real)}`];
  }
  if (typeof example === 'string' && formOf(example) !== formOf(real as string)) {
    return [`${at}: ${formOf(example)} in the example, ${formOf(real as string)} answered`];
  }
  return [];
}

describe('the examples of the OpenAPI document, beside real answers', () => {
  it('registerPayment, getPayment and refundPayment answer what their examples show', async () => {
    const merchant = await stack.merchant('Exemples');
    const headers = { 'x-api-key': merchant.testKey };
    const body = {
      amount: 250_000,
      currency: 'DZD',
      reference: 'EXAMPLE-1042',
      successUrl: 'https://shop.example.dz/merci?cart=42',
      failureUrl: 'https://shop.example.dz/echec',
      language: 'fr',
      metadata: { cartId: 'C-42' },
    };
    const registered = await stack.post('/api/v1/payments', body, headers);
    expect(registered.status).toBe(201);
    const registration = (await registered.json()) as { data: { id: string; checkoutUrl: string } };
    expect(differences(exampleOf('/api/v1/payments', 'post', 201), registration)).toEqual([]);

    await payByHttp(registration.data.checkoutUrl, CARDS.approved);
    const paid = await stack.get(`/api/v1/payments/${registration.data.id}`, headers);
    expect(paid.status).toBe(200);
    expect(differences(exampleOf('/api/v1/payments/{id}', 'get', 200), await paid.json())).toEqual(
      [],
    );

    const refunded = await stack.post(
      `/api/v1/payments/${registration.data.id}/refund`,
      { amount: 100_000 },
      headers,
    );
    expect(refunded.status).toBe(200);
    expect(
      differences(exampleOf('/api/v1/payments/{id}/refund', 'post', 200), await refunded.json()),
    ).toEqual([]);
  }, 60_000);

  it('says the limit the 429 and its headers say, and the replay header registrations send', async () => {
    const merchant = await stack.merchant('Limites');
    const headers = { 'x-api-key': merchant.testKey };
    let refused: Response | undefined;
    for (let sent = 0; sent <= API_LIMIT && !refused; sent++) {
      const answer = await stack.get('/api/v1/payments?limit=1', headers);
      if (answer.status === 429) refused = answer;
    }
    expect(refused, `no 429 after ${API_LIMIT + 1} requests`).toBeDefined();
    const real = (await refused!.json()) as { message: string };
    const example = exampleOf('/api/v1/payments', 'get', 429);
    expect(example).toEqual(real);
    expect(refused!.headers.get('x-ratelimit-limit')).toBe(String(API_LIMIT));
    const declared = document.paths['/api/v1/payments']!.get!.responses['429'] as {
      headers: Record<string, { schema: { example?: number } }>;
    };
    expect(declared.headers['x-ratelimit-limit']!.schema.example).toBe(API_LIMIT);

    const other = await stack.merchant('Rejeu');
    const keyed = { 'x-api-key': other.testKey, 'idempotency-key': 'example-replay-1' };
    const body = { amount: 150_000, currency: 'DZD', reference: 'EXAMPLE-REPLAY-1' };
    const first = await stack.post('/api/v1/payments', body, keyed);
    const again = await stack.post('/api/v1/payments', body, keyed);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const registration = document.paths['/api/v1/payments']!.post!.responses['201'] as {
      headers: Record<string, { schema: { enum: string[] } }>;
    };
    expect(registration.headers['idempotent-replayed']!.schema.enum).toEqual(['true']);
  }, 60_000);
});
