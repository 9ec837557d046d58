import { describe, expect, it } from 'vitest';
import {
  parseLastOrdersQuery,
  selectOrders,
  type LastOrdersQuery,
} from '../src/domain/last-orders.ts';
import { parseLocalTimestamp } from '../src/domain/local-time.ts';
import { payOrder, registerOrder, type Order } from '../src/domain/order.ts';
import { referenceNumberOf } from '../src/domain/reference-number.ts';
import { judgeCard } from '../src/domain/test-cards.ts';

const ALGIERS = 'Africa/Algiers';
const t0 = Date.parse('2026-11-21T10:00:00Z');
const at = (minutes: number) => new Date(t0 + minutes * 60_000);

function order(orderId: string, registeredMinute: number): Order {
  return registerOrder(
    {
      orderNumber: `N-${orderId}`,
      amount: 1000,
      returnUrl: 'https://shop.example/back',
      failUrl: 'https://shop.example/back',
      language: 'fr',
      description: '',
      sessionTimeoutSecs: 86_400,
      jsonParams: {},
    },
    orderId,
    at(registeredMinute),
  );
}

function paid(base: Order, minute: number, pan = '6280580000000009'): Order {
  const card = { pan, expiryMonth: 12, expiryYear: 2030, cvv: '123', cardholderName: 'P' };
  return payOrder(
    base,
    { card, verdict: judgeCard(card, at(minute)), approvalCode: '1' },
    at(minute),
  ).order;
}

const required = {
  size: '10',
  from: '20261121000000',
  to: '20261122000000',
  transactionStates: 'CREATED,DEPOSITED,DECLINED',
};

function query(change: Record<string, string> = {}): LastOrdersQuery {
  const parsed = parseLastOrdersQuery({ ...required, ...change }, ALGIERS);
  if (!parsed.ok) throw new Error(parsed.error.errorMessage);
  return parsed.value;
}

describe('parseLocalTimestamp', () => {
  it('reads yyyyMMddHHmmss as wall-clock time in the zone', () => {
    expect(parseLocalTimestamp('20261121120000', ALGIERS)).toBe(Date.parse('2026-11-21T11:00:00Z'));
    expect(parseLocalTimestamp('20261121120000', 'UTC')).toBe(Date.parse('2026-11-21T12:00:00Z'));
    expect(parseLocalTimestamp('20260701120000', 'Europe/Paris')).toBe(
      Date.parse('2026-07-01T10:00:00Z'),
    );
  });

  it.each(['2026112112000', '20261121120000Z', '20260230120000', '20261121240000', '2026-11-21'])(
    'refuses %s',
    (raw) => {
      expect(parseLocalTimestamp(raw, ALGIERS)).toBeNull();
    },
  );
});

describe('parseLastOrdersQuery', () => {
  it('applies the defaults: page 0, by payment date, every merchant', () => {
    expect(query()).toMatchObject({
      size: 10,
      page: 0,
      byCreatedDate: false,
      merchants: [],
      language: null,
    });
  });

  it.each([
    ['size missing', { size: '' }],
    ['transactionStates missing', { transactionStates: '' }],
    ['size 0', { size: '0' }],
    ['size 201', { size: '201' }],
    ['a negative page', { page: '-1' }],
    ['from not yyyyMMddHHmmss', { from: '2026-11-21' }],
    ['from equal to to', { from: '20261122000000' }],
    ['from after to', { from: '20261123000000' }],
    ['an unknown state', { transactionStates: 'DEPOSITED,PAID' }],
    ['a lower-case state', { transactionStates: 'deposited' }],
    ['searchByCreatedDate not a boolean', { searchByCreatedDate: 'yes' }],
  ])('answers errorCode 5 for %s', (_label, change) => {
    expect(parseLastOrdersQuery({ ...required, ...change }, ALGIERS)).toMatchObject({
      ok: false,
      error: { errorCode: '5' },
    });
  });
});

describe('selectOrders', () => {
  const orders = [
    paid(order('b', 0), 30),
    paid(order('a', 5), 30),
    order('c', 10),
    paid(order('d', 15), 20, '6280580000000017'),
    paid(order('e', 20), 25),
  ];
  const ids = (selected: { orders: Order[] }) => selected.orders.map((o) => o.orderId);

  it('orders by payment date then order id, and leaves out what nobody paid', () => {
    expect(ids(selectOrders(orders, query(), 'shop'))).toEqual(['e', 'a', 'b']);
  });

  it('orders by registration date when asked, unpaid and declined orders included', () => {
    expect(ids(selectOrders(orders, query({ searchByCreatedDate: 'true' }), 'shop'))).toEqual([
      'b',
      'a',
      'c',
      'd',
      'e',
    ]);
  });

  it('pages with the total count', () => {
    const byCreated = { searchByCreatedDate: 'true', size: '2' };
    expect(selectOrders(orders, query({ ...byCreated, page: '2' }), 'shop')).toMatchObject({
      totalCount: 5,
    });
    expect(ids(selectOrders(orders, query({ ...byCreated, page: '1' }), 'shop'))).toEqual([
      'c',
      'd',
    ]);
    expect(ids(selectOrders(orders, query({ ...byCreated, page: '3' }), 'shop'))).toEqual([]);
  });

  it('includes both ends, to the second, in the zone', () => {
    // e was paid at 10:25:00Z, 11:25:00 in Algiers.
    const around = (from: string, to: string) =>
      ids(selectOrders(orders, query({ from, to }), 'shop'));
    expect(around('20261121112500', '20261121112900')).toEqual(['e']);
    expect(around('20261121110000', '20261121112500')).toEqual(['e']);
    expect(around('20261121112501', '20261121112900')).toEqual([]);
  });

  it('keeps only the states asked for', () => {
    const declined = query({ searchByCreatedDate: 'true', transactionStates: 'DECLINED' });
    expect(ids(selectOrders(orders, declined, 'shop'))).toEqual(['d']);
  });

  it('finds nothing for merchants that do not include this one', () => {
    expect(selectOrders(orders, query({ merchants: 'other,another' }), 'shop').totalCount).toBe(0);
    expect(selectOrders(orders, query({ merchants: 'other, shop' }), 'shop').totalCount).toBe(3);
  });
});

describe('referenceNumberOf', () => {
  it('is 12 digits: year digit, day of the year, then the sequence', () => {
    expect(referenceNumberOf(42, new Date('2026-11-21T12:00:00Z'))).toBe('632500000042');
    expect(referenceNumberOf(1, new Date('2027-01-01T00:00:00Z'))).toBe('700100000001');
  });
});
