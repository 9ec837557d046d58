import { connectPostgres } from '@dzpay/platform';
import { freePort } from '@dzpay/testkit';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { issueApiKey } from '@dzpay/accounts';
import { authenticate } from '../src/routes/shared/authenticate.ts';

const requestWithKey = (key: string) =>
  ({ raw: { headersDistinct: { 'x-api-key': [key] } } }) as unknown as FastifyRequest;

describe('authenticate when the database cannot be reached', () => {
  it('answers SERVICE503_UNAVAILABLE, not a 500, and does not hang', async () => {
    // A real connection refusal: nothing listens on this port.
    const unreachable = connectPostgres(
      `postgres://postgres@127.0.0.1:${await freePort()}/x`,
      'accounts',
      1,
    );
    const keys = {
      findKeyOwner: async () => {
        await unreachable`select 1`;
        return null;
      },
    };
    const started = Date.now();
    const failure = await authenticate(
      requestWithKey(issueApiKey('test').key),
      keys,
      'AUTH401_UNAUTHORIZED_ACCESS',
    ).catch((error: unknown) => error);
    expect(failure).toMatchObject({
      code: 'SERVICE503_UNAVAILABLE',
      details: { reason: 'database' },
    });
    expect(Date.now() - started).toBeLessThan(6_000);
    await unreachable.end();
  });
});
