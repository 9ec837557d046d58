import { StandardError, type PaymentListItem } from '@dzpay/contracts';
import { DzpayError } from '@dzpay/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack.ts';

/**
 * The back office's payments routes through the real gateway and payments: the list
 * and its pages, the CSV export parsed back (it must say what the list says), the
 * cancel, another merchant's ids, and bad filters.
 */

let stack: Stack;
let merchant: Awaited<ReturnType<Stack['merchant']>>;
let other: Awaited<ReturnType<Stack['merchant']>>;
const registered: string[] = [];
const run = Date.now().toString(36);

beforeAll(async () => {
  stack = await startStack(
    'payments-list',
    { RATE_LIMIT_PER_MINUTE: '100000' },
    { withPayments: true },
  );
  merchant = await stack.merchant('Librairie Tassili', { walletId: 'W-1', feeDzd: 50 });
  other = await stack.merchant('Café Bab El Oued');
  const client = stack.client(merchant.testKey);
  const references = [`${run}-A`, `=HYPERLINK("x")-${run}`, `${run}-B,"quoted"`, `${run}-C`];
  for (const [i, reference] of references.entries()) {
    const payment = await client.registerPayment({
      amount: 150_050 + i,
      currency: 'DZD',
      reference,
      metadata: { cart: `C-${i}`, note: i === 1 ? '@evil, "x"\nline' : 'ok' },
    });
    registered.unshift(payment.id);
  }
});
afterAll(() => stack?.stop());

/** RFC 4180: quoted cells may hold commas, doubled quotes and line breaks; CRLF ends a record. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      record.push(cell);
      cell = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      record.push(cell);
      records.push(record);
      record = [];
      cell = '';
      i++;
    } else cell += char;
  }
  if (cell !== '' || record.length > 0) throw new Error('the CSV does not end with CRLF');
  return records;
}

describe('GET /api/v1/payments', () => {
  it('keeps its pages while payments keep arriving: none twice, none of the older ones missed', async () => {
    const busy = await stack.merchant('Marché Clauzel', { walletId: 'W-2' });
    const client = stack.client(busy.testKey);
    const register = (i: number) =>
      client.registerPayment({
        amount: 60_000 + i,
        currency: 'DZD',
        reference: `${run}-busy-${i}`,
      });
    const before = new Set<string>();
    for (let i = 0; i < 30; i++) before.add((await register(i)).id);

    // Another till registers 20 more, one after the other, while the pages are read.
    let arriving = 30;
    const arrivals = (async () => {
      while (arriving < 50) await register(arriving++);
    })();
    const seen: PaymentListItem[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listPayments({ limit: 4, ...(cursor ? { cursor } : {}) });
      seen.push(...page.payments);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    await arrivals;

    const ids = seen.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of before) expect(ids).toContain(id);
    // Newest first (the API shows milliseconds; the keyset orders by microseconds, then id).
    const times = seen.map((p) => p.createdAt);
    expect(times).toEqual([...times].sort().reverse());
    // The list's first page afterwards starts with the newest arrival.
    const newest = await client.listPayments({ limit: 1 });
    expect(newest.payments[0]!.reference).toBe(`${run}-busy-49`);
  });

  it('pages newest first with the key scope, and filters', async () => {
    const client = stack.client(merchant.testKey);
    const first = await client.listPayments({ limit: 3 });
    expect(first.payments.map((p) => p.id)).toEqual(registered.slice(0, 3));
    const second = await client.listPayments({ limit: 3, cursor: first.nextCursor! });
    expect(second.payments.map((p) => p.id)).toEqual(registered.slice(3));
    expect(second.nextCursor).toBeNull();
    expect(first.payments[0]).toMatchObject({ channel: 'CHECKOUT', status: 'created', fees: 50 });
    const byPrefix = await client.listPayments({ referencePrefix: `${run}-B,` });
    expect(byPrefix.payments.map((p) => p.reference)).toEqual([`${run}-B,"quoted"`]);
    const byCart = await client.listPayments({ metadataKey: 'cart', metadataValue: 'C-2' });
    expect(byCart.payments.map((p) => p.id)).toEqual([registered[1]]);
    // The other merchant, and the live key, see none of them.
    expect((await stack.client(other.testKey).listPayments()).payments).toEqual([]);
    expect((await stack.client(merchant.liveKey).listPayments()).payments).toEqual([]);
  });

  it('answers 400 naming the field for bad filters and a tampered cursor', async () => {
    const bad: [string, string][] = [
      ['status=paid', 'status'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['channel=POS', 'channel'],
      ['createdFrom=yesterday', 'createdFrom'],
      ['createdFrom=2026-02-01&createdTo=2026-01-01', 'createdTo'],
      ['metadataKey=cart', 'metadataValue'],
      ['reference=a&referencePrefix=a', 'referencePrefix'],
      ['sort=asc', 'sort'],
      ['cursor=AAAA', 'cursor'],
    ];
    for (const [query, field] of bad) {
      const response = await stack.get(`/api/v1/payments?${query}`, {
        'x-api-key': merchant.testKey,
      });
      expect(response.status, query).toBe(400);
      const error = StandardError.parse(await response.json());
      expect(error.errorCode).toBe('VALIDATION400_BAD_REQUEST');
      expect(error.details?.failures, query).toContainEqual(expect.objectContaining({ field }));
    }
  });
});

describe('GET /api/v1/payments/export', () => {
  it('streams RFC 4180 CSV that says what the list says, formulas neutralised', async () => {
    const response = await stack.get('/api/v1/payments/export', { 'x-api-key': merchant.testKey });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="payments-test-/,
    );
    const [header, ...rows] = parseCsv(await response.text());
    const listed = (await stack.client(merchant.testKey).listPayments()).payments;
    const column = (row: string[], name: string) => row[header!.indexOf(name)]!;
    expect(rows.map((row) => column(row, 'id'))).toEqual(listed.map((p) => p.id));
    for (const [i, row] of rows.entries()) {
      const p: PaymentListItem = listed[i]!;
      const unformula = (text: string) => (/^[=+\-@]/.test(text) ? `'${text}` : text);
      expect(column(row, 'reference')).toBe(unformula(p.reference));
      expect(column(row, 'status')).toBe(p.status);
      expect(column(row, 'channel')).toBe('CHECKOUT');
      expect(Number(column(row, 'amount_centimes'))).toBe(p.amount);
      expect(column(row, 'amount_dzd')).toBe(
        `${Math.trunc(p.amount / 100)}.${String(p.amount % 100).padStart(2, '0')}`,
      );
      expect(Number(column(row, 'fee_centimes'))).toBe(p.fees * 100);
      expect(Number(column(row, 'total_centimes'))).toBe(p.total);
      expect(column(row, 'created_at')).toBe(p.createdAt);
      expect(column(row, 'order_id')).toBe(p.orderId ?? '');
      expect(JSON.parse(column(row, 'metadata'))).toEqual(p.metadata);
    }
    const formula = rows.find((row) => column(row, 'reference').includes('HYPERLINK'))!;
    expect(column(formula, 'reference')).toBe(`'=HYPERLINK("x")-${run}`);
    expect(column(formula, 'amount_dzd')).toBe('1500.51');
    // The client gives the same text.
    const text = await stack.client(merchant.testKey).exportPayments({ status: 'created' });
    expect(parseCsv(text)).toHaveLength(1 + listed.filter((p) => p.status === 'created').length);
  });

  it("writes the spreadsheet dialect an accountant's French or Arabic Excel opens", async () => {
    const response = await stack.get('/api/v1/payments/export?dialect=spreadsheet', {
      'x-api-key': merchant.testKey,
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    // The UTF-8 byte-order mark first (a fetch's text() drops it; Excel reads by it).
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = await stack.client(merchant.testKey).exportPayments({ dialect: 'spreadsheet' });
    expect(text.startsWith('id;created_at;paid_at;')).toBe(true);
    const listed = (await stack.client(merchant.testKey).listPayments()).payments;
    const first = text.split('\r\n')[1]!;
    expect(first.startsWith(`${listed[0]!.id};`)).toBe(true);
    expect(first).toMatch(/;\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+01:00;/);
    expect(first).toMatch(/;\d+,\d\d;/);
    const bad = await stack.get('/api/v1/payments/export?dialect=excel', {
      'x-api-key': merchant.testKey,
    });
    expect(bad.status).toBe(400);
    expect(StandardError.parse(await bad.json()).details?.failures).toEqual([
      expect.objectContaining({ field: 'dialect' }),
    ]);
  });

  it('answers a bad filter with 400 in JSON before any CSV', async () => {
    const response = await stack.get('/api/v1/payments/export?status=nope', {
      'x-api-key': merchant.testKey,
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(StandardError.parse(await response.json()).details?.failures).toEqual([
      expect.objectContaining({ field: 'status' }),
    ]);
  });
});

describe('POST /api/v1/payments/{id}/cancel', () => {
  it("cancels a payment not paid yet, again idempotently; another merchant's id is 404", async () => {
    const client = stack.client(merchant.testKey);
    const payment = await client.registerPayment({
      amount: 250_000,
      currency: 'DZD',
      reference: `${run}-CANCEL`,
    });
    const notFound = await stack
      .client(other.testKey)
      .cancelPayment(payment.id)
      .catch((error: unknown) => error);
    expect(notFound).toBeInstanceOf(DzpayError);
    expect(notFound).toMatchObject({ status: 404, errorCode: 'PAYMENT_INSTANCE404_NOT_FOUND' });
    const cancelled = await client.cancelPayment(payment.id);
    expect(cancelled).toMatchObject({
      id: payment.id,
      status: 'cancelled',
      failureReason: 'cancelled',
    });
    expect(await client.cancelPayment(payment.id)).toEqual(cancelled);
    expect((await client.getPayment(payment.id)).status).toBe('cancelled');
    expect((await client.listPayments({ status: 'cancelled' })).payments.map((p) => p.id)).toEqual([
      payment.id,
    ]);
    const unknown = await client
      .cancelPayment('00000000-0000-4000-8000-000000000000')
      .catch((error: unknown) => error);
    expect(unknown).toMatchObject({ status: 404, errorCode: 'PAYMENT_INSTANCE404_NOT_FOUND' });
  });
});
