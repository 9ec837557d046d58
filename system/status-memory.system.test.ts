import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPartnerShop, type PartnerShop } from './support/partner-shop.ts';
import { CARDS, submitCard } from './support/payer.ts';
import type { Stack } from './support/stack.ts';

// The gateway and status answer hot references from memory (docs/status.md, "Answering
// from memory"). Here both remember for ten minutes: only the commit's notification can
// make a change show, and it must show within the lag, every time.

let world: PartnerShop;
let stack: Stack;
let shop: PartnerShop['shop'];
const statusOf = (reference: string) => world.statusOf(reference);

beforeAll(async () => {
  world = await startPartnerShop('status-memory', {
    STATUS_RATE_LIMIT_PER_MINUTE: '1000',
    STATUS_CACHE_TTL_MS: '600000',
  });
  ({ stack, shop } = world);
});
afterAll(() => world?.stop());

/** status.reference.get requests the gateway has sent so far (its /metrics counter). */
async function asked(): Promise<number> {
  const text = await stack.gateway.runtime.ops.registry.getSingleMetricAsString(
    'dzpay_nats_request_duration_seconds',
  );
  return text
    .split('\n')
    .filter((line) => line.startsWith('dzpay_nats_request_duration_seconds_count'))
    .filter((line) => line.includes('subject="status.reference.get"'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

async function startPaying(reference: string): Promise<string> {
  const started = await fetch(`${stack.gateway.url}/pay/${shop.id}/${reference}?mode=test`, {
    method: 'POST',
    redirect: 'manual',
  });
  expect(started.status).toBe(303);
  return new URL(started.headers.get('location')!, stack.gateway.url).href.split('?')[0]!;
}

describe('status answered from memory', () => {
  it('asks status once for a hot reference, and still shows each change within the lag', async () => {
    // Unknown references are never remembered: each query asks.
    const before = await asked();
    await statusOf('MEM-UNKNOWN');
    await statusOf('MEM-UNKNOWN');
    expect((await asked()) - before).toBe(2);

    const checkoutUrl = await startPaying('MEM-1');
    await expect
      .poll(async () => (await statusOf('MEM-1')).stage, { timeout: 5_000 })
      .toBe('locked');
    // Once the attempt's events have all been projected, a query is answered from memory.
    const asksOnce = async () => {
      const start = await asked();
      await statusOf('MEM-1');
      return (await asked()) - start;
    };
    await expect.poll(asksOnce, { timeout: 5_000 }).toBe(0);
    const remembered = await asked();
    const locked = await statusOf('MEM-1');
    for (let i = 0; i < 5; i++) expect(await statusOf('MEM-1')).toEqual(locked);
    expect(await asked()).toBe(remembered);

    const formUrl = (
      await fetch(`${checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' })
    ).headers.get('location')!;
    const back = await submitCard(formUrl, CARDS.approved);
    await fetch(back.headers.get('location')!, { redirect: 'manual' });
    await expect.poll(async () => (await statusOf('MEM-1')).stage, { timeout: 5_000 }).toBe('paid');
    expect(await asked()).toBeGreaterThan(remembered);
  });
});
