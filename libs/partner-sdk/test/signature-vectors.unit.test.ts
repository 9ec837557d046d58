import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { verifyWebhook, type VerifyWebhookResult, type WebhookFailure } from '../src/index.ts';

// sdks/signature-vectors.json: the webhook signature vectors every dzpay SDK (Node, PHP,
// Python) must pass, generated from the dispatcher's signing code by
// sdks/vectors/generate.ts. Each one goes through verifyWebhook, the verifier partners
// call, with the vector's clock and tolerance.

const root = fileURLToPath(new URL('../../../', import.meta.url));
const vectorsPath = `${root}sdks/signature-vectors.json`;
const generatorPath = `${root}sdks/vectors/generate.ts`;

const Reason = z.enum([
  'bad-signature',
  'stale',
  'future',
  'missing-header',
  'duplicate-header',
  'malformed-header',
  'malformed-body',
]);
type Reason = z.infer<typeof Reason>;

const Vector = z.strictObject({
  name: z.string().min(1),
  secret: z.string().min(1),
  headers: z.record(z.string(), z.union([z.string(), z.array(z.string()).min(2)])),
  rawBody: z.string(),
  now: z.int().nonnegative(),
  toleranceSeconds: z.int().nonnegative(),
  expect: z.discriminatedUnion('valid', [
    z.strictObject({ valid: z.literal(true) }),
    z.strictObject({ valid: z.literal(false), reason: Reason }),
  ]),
});
type Vector = z.infer<typeof Vector>;

const VectorFile = z.strictObject({
  description: z.string().min(1),
  algorithmNotes: z.record(z.string(), z.string()),
  vectors: z.array(Vector).min(1),
});

const text = readFileSync(vectorsPath, 'utf8');
const { vectors } = VectorFile.parse(JSON.parse(text));

/**
 * The Node SDK's reason for each reason of the vectors: it tells fewer apart (a stale
 * and a future timestamp are both stale; a duplicated or malformed header counts as
 * missing).
 */
const nodeReason: Record<Reason, WebhookFailure> = {
  'bad-signature': 'bad_signature',
  stale: 'stale_timestamp',
  future: 'stale_timestamp',
  'missing-header': 'missing_headers',
  'duplicate-header': 'missing_headers',
  'malformed-header': 'missing_headers',
  'malformed-body': 'malformed_body',
};

const expected = (vector: Vector) =>
  vector.expect.valid ? 'ok' : nodeReason[vector.expect.reason];
const outcome = (result: VerifyWebhookResult) => (result.ok ? 'ok' : result.reason);

function verify(
  vector: Vector,
  rawBody: string | Uint8Array,
  headers: Vector['headers'] | Headers,
) {
  return verifyWebhook({
    rawBody,
    headers,
    signingSecret: vector.secret,
    toleranceSeconds: vector.toleranceSeconds,
    now: new Date(vector.now * 1000),
  });
}

/** The headers as a fetch Headers object (Hono, Next.js), each line of a repeated header appended. */
function fetchHeaders(headers: Vector['headers']): Headers {
  const result = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    for (const line of Array.isArray(value) ? value : [value]) result.append(name, line);
  }
  return result;
}

describe('sdks/signature-vectors.json through verifyWebhook', () => {
  it.each(vectors.map((vector) => [vector.name, vector] as const))('%s', (_, vector) => {
    expect(outcome(verify(vector, vector.rawBody, vector.headers))).toBe(expected(vector));
    // The same bytes as a Buffer, as a partner's raw-body middleware gives them.
    expect(outcome(verify(vector, Buffer.from(vector.rawBody, 'utf8'), vector.headers))).toBe(
      expected(vector),
    );
  });

  it.each(
    vectors
      .filter((vector) => Object.values(vector.headers).every((value) => !Array.isArray(value)))
      .map((vector) => [vector.name, vector] as const),
  )('with fetch Headers: %s', (_, vector) => {
    expect(outcome(verify(vector, vector.rawBody, fetchHeaders(vector.headers)))).toBe(
      expected(vector),
    );
  });

  // A real Node server never hands over the array: node:http and fetch Headers join a
  // repeated line with ", ". The reason then differs (a joined signature is no hex), the
  // verdict may not: a duplicated header is never accepted unless the vector accepts it.
  it.each(
    vectors
      .filter((vector) => Object.values(vector.headers).some((value) => Array.isArray(value)))
      .map((vector) => [vector.name, vector] as const),
  )('joined as node:http and fetch Headers give them: %s', (_, vector) => {
    const joined = Object.fromEntries(
      Object.entries(vector.headers).map(([name, value]) => [
        name,
        Array.isArray(value) ? value.join(', ') : value,
      ]),
    );
    const valid = (headers: Record<string, string> | Headers) =>
      verify(vector, vector.rawBody, headers).ok;
    expect(valid(joined)).toBe(vector.expect.valid);
    expect(valid(fetchHeaders(vector.headers))).toBe(vector.expect.valid);
  });

  it('has every reason, both schemes and unique names', () => {
    const reasons = new Set(
      vectors.map((vector) => (vector.expect.valid ? 'valid' : vector.expect.reason)),
    );
    expect([...reasons].sort()).toEqual(['valid', ...Reason.options].sort());
    const valid = vectors.filter((vector) => vector.expect.valid);
    const names = (vector: Vector) => Object.keys(vector.headers).map((name) => name.toLowerCase());
    expect(valid.some((vector) => !names(vector).includes('webhook-signature'))).toBe(true);
    expect(valid.some((vector) => !names(vector).includes('x-signature'))).toBe(true);
    expect(new Set(vectors.map((vector) => vector.name)).size).toBe(vectors.length);
  });
});

describe('sdks/signature-vectors.json', () => {
  it('is what sdks/vectors/generate.ts writes (regenerate it when this fails)', () => {
    const generated = execFileSync(process.execPath, [generatorPath], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(generated === text, 'node sdks/vectors/generate.ts > sdks/signature-vectors.json').toBe(
      true,
    );
  }, 30_000);
});
