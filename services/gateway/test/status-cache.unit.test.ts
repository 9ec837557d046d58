import type { StatusRecord, StatusReply } from '@dzpay/contracts';
import { describe, expect, it } from 'vitest';
import { statusCache } from '../src/adapters/status-cache.ts';

const subject = {
  merchantId: '8d5e2f0a-9c1b-4a3e-8f7d-2b6c1a0e9d4f',
  mode: 'test' as const,
  reference: 'BOOK-1',
};
const record = (stage: StatusRecord['stage'], lockReleaseTime: string | null): StatusRecord => ({
  reference: 'BOOK-1',
  stage,
  locked: stage === 'locked',
  paid: stage === 'paid',
  lockReleaseTime,
  paymentId: stage === 'not_found' ? null : 'p1',
  channel: 'AGENCY',
  currency: 'DZD',
  amount: stage === 'not_found' ? null : 1500,
  payment: null,
});

/** A reply whose deciding attempt is a row of status's projection, at revision 1. */
const fromProjection = (answer: StatusRecord): StatusReply => ({
  ...answer,
  revisions: answer.paymentId ? { [answer.paymentId]: 1 } : {},
});

describe("the gateway's status memory", () => {
  it('answers a remembered record against the clock, asks again once told of a change', async () => {
    let clock = Date.parse('2030-01-01T00:14:00.000Z');
    const cache = statusCache({ ttlMs: 600_000, maxEntries: 10, now: () => clock });
    let asks = 0;
    const ask = (answer: StatusRecord) => () => {
      asks++;
      return Promise.resolve(fromProjection(answer));
    };
    const locked = record('locked', '2030-01-01T00:15:00.000Z');
    expect(await cache.statusOf(subject, ask(locked))).toEqual(locked);
    clock = Date.parse('2030-01-01T00:16:00.000Z');
    // From memory, and the lock's end is past: still locked, no release time.
    expect(await cache.statusOf(subject, ask(record('paid', null)))).toEqual({
      ...locked,
      lockReleaseTime: null,
    });
    expect(asks).toBe(1);
    cache.forget(subject);
    expect((await cache.statusOf(subject, ask(record('paid', null)))).stage).toBe('paid');
    expect(asks).toBe(2);
  });

  // A free stage is true only when status checked it against payments' rows: an
  // attempt opened while the stream lags sends no notification to forget it by.
  it.each(['not_found', 'released', 'refunded'] as const)('never remembers %s', async (stage) => {
    const cache = statusCache({ ttlMs: 600_000, maxEntries: 10 });
    let asks = 0;
    const ask = () => {
      asks++;
      return Promise.resolve(record(stage, null));
    };
    await cache.statusOf(subject, ask);
    await cache.statusOf(subject, ask);
    expect(asks).toBe(2);
    expect(cache.size()).toBe(0);
  });

  it.each(['locked', 'paid'] as const)('remembers %s', async (stage) => {
    const cache = statusCache({ ttlMs: 600_000, maxEntries: 10 });
    let asks = 0;
    const ask = () => {
      asks++;
      return Promise.resolve(fromProjection(record(stage, null)));
    };
    await cache.statusOf(subject, ask);
    await cache.statusOf(subject, ask);
    expect(asks).toBe(1);
  });

  // Status read it from payments' rows, ahead of the stream: no notification would come
  // when that attempt is paid or declined, so it is asked again.
  it('never remembers a held stage decided by an attempt the projection lacks', async () => {
    const cache = statusCache({ ttlMs: 600_000, maxEntries: 10 });
    let asks = 0;
    const ask = () => {
      asks++;
      return Promise.resolve({ ...record('locked', null), revisions: { other: 2 } });
    };
    await cache.statusOf(subject, ask);
    await cache.statusOf(subject, ask);
    expect(asks).toBe(2);
  });
});
