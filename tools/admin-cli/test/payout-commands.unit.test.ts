import { describe, expect, it } from 'vitest';
import { formatPayouts, formatRecorded, parseDzdAmount } from '../src/payout-commands.ts';

describe('dzpay payout record --amount', () => {
  it.each([
    ['1500', 150_000],
    ['1500.5', 150_050],
    ['1500,50', 150_050],
    ['0.29', 29],
    ['1234567.89', 123_456_789],
  ])('reads %j DZD exactly as %i centimes', (value, centimes) => {
    expect(parseDzdAmount(value)).toBe(centimes);
  });

  it.each(['0', '1.500', '1 500', '1,500.00', '-10', '1e3', '10.005', ''])(
    'refuses %j',
    (value) => {
      expect(() => parseDzdAmount(value)).toThrow('DZD above zero with at most two decimals');
    },
  );
});

describe('what the operator reads', () => {
  const payout = {
    id: '33333333-3333-4333-8333-333333333333',
    mode: 'live' as const,
    amount: 150_050,
    wallet: 'W-1',
    reference: 'BNA-1',
    recordedAt: '2026-03-10T10:00:00.000Z',
  };

  it('says what was recorded and the balance left, or that nothing new was', () => {
    expect(formatRecorded({ payout, replayed: false, balance: 49_950 })).toBe(
      'payout 33333333-3333-4333-8333-333333333333 recorded: 1500.50 DZD to wallet W-1 (live, bank reference BNA-1); balance now 499.50 DZD',
    );
    expect(formatRecorded({ payout, replayed: true, balance: 0 })).toBe(
      'already recorded: payout 33333333-3333-4333-8333-333333333333 of 1500.50 DZD to wallet W-1 (live, bank reference BNA-1) on 2026-03-10T10:00:00.000Z; nothing new recorded',
    );
  });

  it('lists payouts one a line', () => {
    expect(formatPayouts([])).toBe('no payout');
    expect(formatPayouts([payout])).toContain('1500.50 DZD  W-1  BNA-1');
  });
});
