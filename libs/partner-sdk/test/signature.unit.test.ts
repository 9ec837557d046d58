import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { signWebhook, standardWebhookSignature, verifyWebhook } from '../src/index.ts';

// The worked example of docs/webhooks.md, repeated here and read from there, so the
// document, this test and the code can only change together.
const example = {
  rawBody:
    '{"id":"0b7e5c1a-3f1e-4d8a-9a65-2f1d7c3e9b10","type":"payment.success","createdAt":"2025-03-14T09:26:53.000Z","data":{"paymentId":"5d1f0c2e-8b4a-4c7e-a1f3-6e2b9d0c4a71","reference":"BOOK-42","channel":"AGENCY","amount":1500.5,"currency":"DZD","status":"success","orderId":"7f3c2a10-4e5b-4b8e-9d61-0c1a2b3c4d5e","paidAt":"2025-03-14T09:26:52.000Z","metadata":null,"failureReason":null}}',
  timestamp: '1741944413',
  secret: 'partner-signing-secret',
  signature: '794c93b1adf7bf172f511c863e9712f4b2abfd9c9bd52939dd6e498d92d9100f',
  webhookId: '0b7e5c1a-3f1e-4d8a-9a65-2f1d7c3e9b10',
  webhookSignature: 'v1,Cox1psW33dgBuFg9aOY3ZQvHha/GJPskcrQ2+s2f1qI=',
};

/** The values as docs/webhooks.md writes them: a `text` block and a table of backticked cells. */
function exampleInDocs() {
  const docs = readFileSync(new URL('../../../docs/webhooks.md', import.meta.url), 'utf8');
  const cell = (label: string) => {
    const row = docs.split('\n').find((line) => line.startsWith(`| ${label} `));
    return row?.split('|')[2]?.trim().replace(/^`|`$/g, '');
  };
  return {
    rawBody: /```text\n(\{.*\})\n```/.exec(docs)?.[1],
    timestamp: cell('timestamp'),
    secret: cell('signing secret'),
    signature: cell('X-Signature'),
    webhookId: cell('webhook-id'),
    webhookSignature: cell('webhook-signature'),
  };
}

describe('the worked example of docs/webhooks.md', () => {
  it('is the example the docs show', () => {
    expect(exampleInDocs()).toEqual(example);
  });

  it('signs to the documented X-Signature', () => {
    expect(signWebhook(example.rawBody, Number(example.timestamp), example.secret)).toBe(
      example.signature,
    );
    expect(signWebhook(Buffer.from(example.rawBody), example.timestamp, example.secret)).toBe(
      example.signature,
    );
  });

  it('signs to the documented webhook-signature', () => {
    expect(
      standardWebhookSignature(
        example.webhookId,
        example.timestamp,
        example.rawBody,
        example.secret,
      ),
    ).toBe(example.webhookSignature);
  });

  it('verifies at the documented time and is stale ten minutes later', () => {
    const headers = {
      'x-timestamp': example.timestamp,
      'x-signature': example.signature,
      'webhook-id': example.webhookId,
      'webhook-timestamp': example.timestamp,
      'webhook-signature': example.webhookSignature,
    };
    const at = (seconds: number) =>
      verifyWebhook({
        rawBody: example.rawBody,
        headers,
        signingSecret: example.secret,
        now: new Date(seconds * 1000),
      });
    expect(at(Number(example.timestamp) + 5)).toMatchObject({
      ok: true,
      event: { data: { reference: 'BOOK-42', amount: 1500.5 } },
    });
    expect(at(Number(example.timestamp) + 600)).toMatchObject({
      ok: false,
      reason: 'stale_timestamp',
    });
  });
});

describe('the Standard Webhooks key rule', () => {
  it('keys a whsec_ secret with its base64-decoded bytes, as that scheme’s libraries do', () => {
    const whsec = `whsec_${Buffer.from(example.secret).toString('base64')}`;
    expect(
      standardWebhookSignature(example.webhookId, example.timestamp, example.rawBody, whsec),
    ).toBe(example.webhookSignature);
  });

  it('keys X-Signature with the secret as written, whatever its prefix', () => {
    const whsec = `whsec_${Buffer.from(example.secret).toString('base64')}`;
    expect(signWebhook(example.rawBody, example.timestamp, whsec)).not.toBe(example.signature);
  });
});
