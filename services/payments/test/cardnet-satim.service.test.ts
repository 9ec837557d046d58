import { createServer } from 'node:net';
import { startSandbox, type Sandbox } from '@dzpay/cardnet-sandbox/service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CardNetworkError,
  type CardNetwork,
  type RegisterOrder,
} from '../src/card-network/card-network.ts';
import { satimCardNetwork, type SatimOptions } from '../src/card-network/satim-client.ts';

// The adapter against the real sandbox over HTTP: the payer's side is a real form POST.

const CONFIRM_DELAY_MS = 1_500;
const TIMEOUT_MS = 500;
const APPROVED = '6280580000000009';

let sandbox: Sandbox;
let network: CardNetwork;
let options: SatimOptions;
/** How far the sandbox's clock runs ahead of the real one. */
let clockOffsetMs = 0;
let sequence = 0;

beforeAll(async () => {
  sandbox = await startSandbox(
    {
      SANDBOX_PORT: '0',
      SANDBOX_HOST: '127.0.0.1',
      SANDBOX_USERNAME: 'merchant-1',
      SANDBOX_PASSWORD: 'secret-password-1',
      SANDBOX_CONFIRM_DELAY_MS: String(CONFIRM_DELAY_MS),
      LOG_LEVEL: 'silent',
    },
    { handleSignals: false, clock: () => new Date(Date.now() + clockOffsetMs) },
  );
  options = {
    baseUrl: sandbox.url,
    userName: 'merchant-1',
    password: 'secret-password-1',
    timeoutMs: TIMEOUT_MS,
    terminalId: 'E010901',
  };
  network = satimCardNetwork(options);
});

afterAll(() => sandbox.close());

function order(change: Partial<RegisterOrder> = {}): RegisterOrder {
  return {
    orderNumber: `T${process.pid}-${Date.now().toString(36)}-${++sequence}`,
    amount: 150_000,
    returnUrl: 'https://shop.example/checkout/return?attempt=a1',
    failUrl: 'https://shop.example/checkout/failed?attempt=a1',
    language: 'fr',
    description: 'Commande de test',
    sessionTimeoutSecs: 900,
    udf1: 'REF-1',
    ...change,
  };
}

interface Card {
  pan: string;
  expiry?: string;
  cvv?: string;
}

/** Submits the card form as a browser would, and returns where the payer is sent. */
async function payOnForm(formUrl: string, card: Card): Promise<URL> {
  const form = new URL(formUrl);
  // The form posts to "pay", relative to itself.
  const response = await fetch(new URL('pay', form), {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({
      mdOrder: form.searchParams.get('mdOrder')!,
      pan: card.pan,
      expiry: card.expiry ?? '12/30',
      cvv: card.cvv ?? '123',
      cardholderName: 'Test Payer',
    }),
  });
  expect(response.status).toBe(303);
  return new URL(response.headers.get('location')!);
}

async function rejection(promise: Promise<unknown>): Promise<CardNetworkError> {
  const error: unknown = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(CardNetworkError);
  return error as CardNetworkError;
}

describe('an approved card', () => {
  it('is deposited, and status and confirm report it with its approval code', async () => {
    const { orderId, formUrl } = await network.register(order());
    const back = await payOnForm(formUrl, { pan: APPROVED });
    expect(`${back.origin}${back.pathname}`).toBe('https://shop.example/checkout/return');
    expect(back.searchParams.get('attempt')).toBe('a1');
    expect(back.searchParams.get('orderId')).toBe(orderId);

    const status = await network.status(orderId);
    expect(status).toMatchObject({
      orderId,
      state: 'deposited',
      amount: 150_000,
      refundedAmount: 0,
      actionCode: 0,
      respCode: '00',
      description: 'Paiement accepté',
      maskedPan: '628058**0009',
    });
    expect(status.approvalCode).toMatch(/^\d{6}$/);
    expect(await network.confirm(orderId)).toEqual(status);
  });

  it('shows the form in the order language (Arabic, right to left)', async () => {
    const { formUrl } = await network.register(order({ language: 'ar' }));
    expect(await (await fetch(formUrl)).text()).toContain('<html lang="ar" dir="rtl">');
  });
});

describe('a declined card', () => {
  it.each([
    ['insufficient funds', { pan: '6280580000000017' }, 116, '51'],
    ['a wrong CVV2', { pan: APPROVED, cvv: '000' }, 111, 'AB'],
    ['a lost card', { pan: '6280580000000025' }, 208, '41'],
    ['a stolen card', { pan: '6280580000000033' }, 209, '43'],
    ['an expired card', { pan: APPROVED, expiry: '01/20' }, -2006, '54'],
    ['an unknown card', { pan: '6280580000000058' }, 2001, '14'],
  ])('reports %s as declined', async (_label, card, actionCode, respCode) => {
    const { orderId, formUrl } = await network.register(order());
    const back = await payOnForm(formUrl, card);
    expect(back.pathname).toBe('/checkout/failed');
    expect(await network.confirm(orderId)).toMatchObject({
      state: 'declined',
      actionCode,
      respCode,
      approvalCode: null,
      maskedPan: `628058**${card.pan.slice(-4)}`,
    });
  });
});

describe('registration', () => {
  it('leaves the order registered until the payer acts', async () => {
    const { orderId } = await network.register(order());
    expect(await network.status(orderId)).toMatchObject({
      state: 'registered',
      actionCode: -100,
      respCode: null,
      maskedPan: null,
    });
  });

  it('rejects a duplicate order number with errorCode 1', async () => {
    const first = order();
    await network.register(first);
    const error = await rejection(network.register({ ...first, amount: 200_000 }));
    expect(error).toMatchObject({
      kind: 'refused',
      errorCode: '1',
      meaning: 'duplicate-order-number',
      operation: 'register',
    });
  });

  it('rejects wrong credentials with errorCode 5, never repeating them', async () => {
    const intruder = satimCardNetwork({ ...options, password: 'not-the-password' });
    const error = await rejection(intruder.register(order()));
    expect(error).toMatchObject({ kind: 'refused', errorCode: '5', meaning: 'access-denied' });
    expect(`${error.message} ${String(error.cause)}`).not.toContain('not-the-password');
  });

  it('reports the sandbox outage amount as unavailable', async () => {
    const error = await rejection(network.register(order({ amount: 6_666_600 })));
    expect(error).toMatchObject({ kind: 'unavailable', errorCode: null });
  });

  it('reports a refused connection as unavailable', async () => {
    const closed = satimCardNetwork({
      ...options,
      baseUrl: `http://127.0.0.1:${await freePort()}`,
    });
    const error = await rejection(closed.register(order()));
    expect(error.kind).toBe('unavailable');
    expect(error.message).not.toContain('secret-password-1');
  });
});

describe('retries', () => {
  it('retries a status read once after a lost answer', async () => {
    const { orderId } = await network.register(order());
    const flaky = flakyFetch(1);
    const status = await satimCardNetwork({ ...options, fetch: flaky.fetch }).status(orderId);
    expect(status.state).toBe('registered');
    expect(flaky.calls()).toBe(2);
  });

  it('never retries a registration', async () => {
    const flaky = flakyFetch(1);
    const error = await rejection(
      satimCardNetwork({ ...options, fetch: flaky.fetch }).register(order()),
    );
    expect(error.kind).toBe('unavailable');
    expect(flaky.calls()).toBe(1);
  });
});

describe('the timeout card', () => {
  it('times out at confirmation while the order is deposited', async () => {
    const { orderId, formUrl } = await network.register(order());
    await payOnForm(formUrl, { pan: '6280580000000041' });
    const error = await rejection(network.confirm(orderId));
    expect(error).toMatchObject({ kind: 'timeout', operation: 'confirmOrder' });
    expect(await network.status(orderId)).toMatchObject({ state: 'deposited', actionCode: 0 });
  });
});

describe('refunds', () => {
  it('make the order refunded from the first, partial one on, each in its history', async () => {
    const { orderId, formUrl } = await network.register(order());
    await payOnForm(formUrl, { pan: APPROVED });

    const partly = await network.refund(orderId, 50_000);
    expect(partly).toMatchObject({ state: 'refunded', refundedAmount: 50_000 });
    const fully = await network.refund(orderId, 100_000);
    expect(fully).toMatchObject({ state: 'refunded', refundedAmount: 150_000 });
    expect(fully.refunds?.map((r) => r.amount)).toEqual([50_000, 100_000]);
    const [first, second] = fully.refunds!;
    expect(first!.reference).toMatch(/^\d{12}$/);
    expect(second!.reference).not.toBe(first!.reference);
    expect(first!.at!.getTime()).toBeLessThanOrEqual(second!.at!.getTime());

    const error = await rejection(network.refund(orderId, 1));
    expect(error).toMatchObject({ kind: 'refused', errorCode: '7', meaning: 'not-allowed' });
  });

  it('refuse more than the order amount', async () => {
    const { orderId, formUrl } = await network.register(order());
    await payOnForm(formUrl, { pan: APPROVED });
    const error = await rejection(network.refund(orderId, 150_001));
    expect(error).toMatchObject({ kind: 'refused', errorCode: '7' });
    expect((await network.status(orderId)).refundedAmount).toBe(0);
  });
});

describe('reversal', () => {
  it('reverses a deposited order', async () => {
    const { orderId, formUrl } = await network.register(order());
    await payOnForm(formUrl, { pan: APPROVED });
    expect(await network.reverse(orderId)).toMatchObject({ state: 'reversed' });
  });

  it('cancels an unpaid order, so the payer still on the form cannot pay it', async () => {
    const { orderId, formUrl } = await network.register(order());
    expect(await network.reverse(orderId)).toMatchObject({ state: 'reversed', actionCode: 10 });
    const back = await payOnForm(formUrl, { pan: APPROVED });
    expect(back.pathname).toBe('/checkout/failed');
    expect((await network.status(orderId)).state).toBe('reversed');
  });

  it('is refused for a declined order', async () => {
    const { orderId, formUrl } = await network.register(order());
    await payOnForm(formUrl, { pan: '6280580000000017' });
    const error = await rejection(network.reverse(orderId));
    expect(error).toMatchObject({ kind: 'refused', errorCode: '7' });
  });
});

describe('what an errorCode means', () => {
  it('reads "order not found" (6) as an unknown order, and only that', async () => {
    const error = await rejection(network.status('no-such-order'));
    expect(error).toMatchObject({ kind: 'order-unknown', errorCode: '6' });
  });

  it('reads access denied on a status read as refused, never as an unknown order', async () => {
    const { orderId } = await network.register(order());
    const intruder = satimCardNetwork({ ...options, password: 'rotated-password' });
    const error = await rejection(intruder.status(orderId));
    expect(error).toMatchObject({ kind: 'refused', errorCode: '5', meaning: 'access-denied' });
    expect(error.outcomeUnknown).toBe(false);
  });

  it("takes SATIM's confirmation of a declined order (ErrorCode 3) as a verdict", async () => {
    const { orderId, formUrl } = await network.register(order());
    await payOnForm(formUrl, { pan: '6280580000000017' });
    expect(await network.confirm(orderId)).toMatchObject({ state: 'declined' });
    // Confirmed again (ErrorCode 2 once paid; 3 again here): still a verdict.
    expect(await network.confirm(orderId)).toMatchObject({ state: 'declined' });
  });
});

describe('the orders the network holds', () => {
  it('lists them by registration time, page by page, with our payment id', async () => {
    const from = new Date(Date.now() + clockOffsetMs - 1_000);
    const registered: string[] = [];
    for (let i = 0; i < 3; i++) registered.push((await network.register(order())).orderId);
    const to = new Date(Date.now() + clockOffsetMs + 1_000);
    const first = await network.orders({ from, to, page: 0, size: 2 });
    expect(first.orders).toHaveLength(2);
    expect(first.totalCount).toBeGreaterThanOrEqual(3);
    const listed = [...first.orders];
    for (let page = 1; listed.length < first.totalCount; page++) {
      listed.push(...(await network.orders({ from, to, page, size: 2 })).orders);
    }
    expect(new Set(listed.map((o) => o.orderId)).size).toBe(first.totalCount);
    for (const orderId of registered) expect(listed.map((o) => o.orderId)).toContain(orderId);
    expect(listed.find((o) => o.orderId === registered[0])).toMatchObject({
      udf1: 'REF-1',
      state: 'registered',
    });
  });
});

describe('the card form', () => {
  it('charges once when submitted twice, even at the same moment', async () => {
    const { orderId, formUrl } = await network.register(order());
    const [first, second] = await Promise.all([
      payOnForm(formUrl, { pan: APPROVED }),
      payOnForm(formUrl, { pan: APPROVED }),
    ]);
    expect(second.toString()).toBe(first.toString());
    const paid = await network.status(orderId);

    // A later submit with a declining card changes nothing either.
    const third = await payOnForm(formUrl, { pan: '6280580000000017' });
    expect(third.pathname).toBe('/checkout/return');
    expect(await network.status(orderId)).toEqual(paid);
    expect(paid).toMatchObject({ state: 'deposited', amount: 150_000 });
  });

  it('declines an order whose session expired (-2007) and sends the payer to failUrl', async () => {
    const { orderId, formUrl } = await network.register(order({ sessionTimeoutSecs: 600 }));
    clockOffsetMs += 601_000;
    const visit = await fetch(formUrl, { redirect: 'manual' });
    expect(visit.status).toBe(303);
    expect(new URL(visit.headers.get('location')!).pathname).toBe('/checkout/failed');
    const back = await payOnForm(formUrl, { pan: APPROVED });
    expect(back.pathname).toBe('/checkout/failed');
    expect(await network.status(orderId)).toMatchObject({
      state: 'declined',
      actionCode: -2007,
      respCode: null,
      description: 'Session de paiement expirée',
    });
  });
});

/** A port nothing listens on: bound, then released. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

/** The real fetch, except that the first `failures` calls lose their answer. */
function flakyFetch(failures: number): { fetch: typeof fetch; calls: () => number } {
  let calls = 0;
  return {
    fetch: (input, init) => {
      calls += 1;
      if (calls <= failures) return Promise.reject(new TypeError('fetch failed'));
      return fetch(input, init);
    },
    calls: () => calls,
  };
}
