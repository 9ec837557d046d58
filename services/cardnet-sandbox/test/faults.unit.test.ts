import { describe, expect, it } from 'vitest';
import {
  armRules,
  FaultRule,
  FaultRulesBody,
  nextRandom,
  pickFault,
  type ArmedRule,
  type FaultCall,
} from '../src/domain/faults.ts';

const refund = (orderId?: string): FaultCall => ({ operation: 'refund', orderId });

/** Sends the calls one after another; the index of the rule each met, or null. */
function replay(rules: FaultRule[], calls: FaultCall[]) {
  let armed: ArmedRule[] = armRules(rules);
  const picked = calls.map((call) => {
    const result = pickFault(armed, call);
    armed = result.armed;
    return result.picked;
  });
  return { picked, armed };
}

describe('a fault rule', () => {
  it('takes every field', () => {
    const rule = {
      id: 'slow-refunds',
      operation: 'refund',
      effect: 'hang',
      ms: 5_000,
      probability: 0.25,
      orderIds: ['order-1'],
      orderNumbers: ['N-1'],
      times: 3,
      seed: -42,
    };
    expect(FaultRule.parse(rule)).toEqual(rule);
  });

  it.each([
    ['latency without ms', { operation: 'refund', effect: 'latency' }],
    ['ms on unavailable', { operation: 'refund', effect: 'unavailable', ms: 10 }],
    ['orderIds on register', { operation: 'register', effect: 'hang', orderIds: ['x'] }],
    ['an unknown field', { operation: 'refund', effect: 'hang', probabilty: 0.5 }],
    ['an unknown operation', { operation: 'deposit', effect: 'hang' }],
    ['a probability above 1', { operation: 'refund', effect: 'hang', probability: 1.5 }],
    ['times 0', { operation: 'refund', effect: 'hang', times: 0 }],
    ['a negative ms', { operation: 'refund', effect: 'latency', ms: -1 }],
    ['an ms a timer cannot hold', { operation: 'refund', effect: 'hang', ms: 2 ** 31 }],
    ['a fractional seed', { operation: 'refund', effect: 'hang', seed: 1.5 }],
    ['late without ms', { operation: 'refund', effect: 'late' }],
    ['error-code without errorCode', { operation: 'refund', effect: 'error-code' }],
    ['errorCode 0', { operation: 'refund', effect: 'error-code', errorCode: '0' }],
    ['an errorCode that is a number', { operation: 'refund', effect: 'error-code', errorCode: 5 }],
    ['errorCode on another effect', { operation: 'refund', effect: 'hang', errorCode: '5' }],
    ['errorMessage on another effect', { operation: 'refund', effect: 'hang', errorMessage: 'x' }],
    ['ms on error-code', { operation: 'refund', effect: 'error-code', errorCode: '5', ms: 1 }],
    ['error-code on the card form', { operation: 'pay', effect: 'error-code', errorCode: '5' }],
    [
      'an order filter on getLastOrdersForMerchants',
      { operation: 'getLastOrdersForMerchants', effect: 'hang', orderNumbers: ['N-1'] },
    ],
  ])('is refused with %s', (_name, rule) => {
    expect(FaultRule.safeParse(rule).success).toBe(false);
  });

  it('takes error-code with a message, and late with ms, on any REST operation', () => {
    const rules = [
      { operation: 'getLastOrdersForMerchants', effect: 'error-code', errorCode: '7' },
      {
        operation: 'getOrderStatusExtended',
        effect: 'error-code',
        errorCode: '5',
        errorMessage: 'The user must change the password',
      },
      { operation: 'refund', effect: 'error-code', errorCode: '14' },
      { operation: 'reverse', effect: 'late', ms: 5_000, orderIds: ['order-1'] },
      { operation: 'pay', effect: 'late', ms: 0 },
    ];
    for (const rule of rules) expect(FaultRule.parse(rule)).toEqual(rule);
  });

  it('must have an id of its own in a set of rules', () => {
    const rule = { id: 'a', operation: 'refund', effect: 'unavailable' };
    expect(FaultRulesBody.safeParse({ rules: [rule, rule] }).success).toBe(false);
    expect(FaultRulesBody.safeParse({ rules: [rule, { ...rule, id: 'b' }] }).success).toBe(true);
  });
});

describe('nextRandom', () => {
  it('is mulberry32: seed 1 gives its well-known first draws', () => {
    const first = nextRandom(1);
    expect(first.value).toBe(0.6270739405881613);
    expect(nextRandom(first.state).value).toBe(0.002735721180215478);
  });
});

describe('pickFault', () => {
  it('applies the first rule that matches, and only that one', () => {
    const { picked, armed } = replay(
      [
        { operation: 'confirmOrder', effect: 'unavailable' },
        { operation: 'refund', effect: 'lost-answer' },
        { operation: 'refund', effect: 'unavailable' },
      ],
      [refund('a'), { operation: 'register' }],
    );
    expect(picked).toEqual([1, null]);
    expect(armed.map((rule) => rule.applied)).toEqual([0, 1, 0]);
  });

  it('meets only calls about the orders it names; an unknown order matches none', () => {
    const { picked } = replay(
      [{ operation: 'refund', effect: 'unavailable', orderIds: ['a', 'b'] }],
      [refund('a'), refund('c'), refund(undefined), refund('b')],
    );
    expect(picked).toEqual([0, null, null, 0]);
  });

  it('meets register calls by order number', () => {
    const rules: FaultRule[] = [
      { operation: 'register', effect: 'unavailable', orderNumbers: ['N-2'] },
    ];
    const { picked } = replay(rules, [
      { operation: 'register', orderNumber: 'N-1' },
      { operation: 'register', orderNumber: 'N-2' },
      { operation: 'register' },
    ]);
    expect(picked).toEqual([null, 0, null]);
  });

  it('needs both filters to match when a rule has both', () => {
    const { picked } = replay(
      [{ operation: 'pay', effect: 'hang', orderIds: ['a'], orderNumbers: ['N-1'] }],
      [
        { operation: 'pay', orderId: 'a', orderNumber: 'N-2' },
        { operation: 'pay', orderId: 'a', orderNumber: 'N-1' },
      ],
    );
    expect(picked).toEqual([null, 0]);
  });

  it('spends a rule after `times` calls, and the next rule takes over', () => {
    const { picked, armed } = replay(
      [
        { operation: 'refund', effect: 'unavailable', times: 2 },
        { operation: 'refund', effect: 'latency', ms: 10 },
      ],
      [refund('a'), refund('a'), refund('a'), refund('a')],
    );
    expect(picked).toEqual([0, 0, 1, 1]);
    expect(armed.map((rule) => rule.applied)).toEqual([2, 2]);
  });

  it('never applies a rule of probability 0, and always one of probability 1', () => {
    const { picked } = replay(
      [
        { operation: 'refund', effect: 'unavailable', probability: 0 },
        { operation: 'refund', effect: 'lost-answer', probability: 1 },
      ],
      Array.from({ length: 20 }, () => refund('a')),
    );
    expect(new Set(picked)).toEqual(new Set([1]));
  });

  it('replays the same draws from the same seed, and others from another seed', () => {
    const calls = Array.from({ length: 64 }, () => refund('a'));
    const rule = (seed: number): FaultRule => ({
      operation: 'refund',
      effect: 'unavailable',
      probability: 0.5,
      seed,
    });
    const first = replay([rule(7)], calls).picked;
    expect(replay([rule(7)], calls).picked).toEqual(first);
    expect(replay([rule(8)], calls).picked).not.toEqual(first);
    const hits = first.filter((index) => index === 0).length;
    expect(hits).toBeGreaterThan(16);
    expect(hits).toBeLessThan(48);
  });

  it('uses seed 1 when none is given', () => {
    const calls = Array.from({ length: 32 }, () => refund('a'));
    const unseeded: FaultRule = { operation: 'refund', effect: 'unavailable', probability: 0.5 };
    expect(replay([unseeded], calls).picked).toEqual(
      replay([{ ...unseeded, seed: 1 }], calls).picked,
    );
  });

  it('falls through to the next rule when a draw fails, and draws only for matching calls', () => {
    const rules: FaultRule[] = [
      { operation: 'refund', effect: 'unavailable', probability: 0.5, seed: 3 },
      { operation: 'refund', effect: 'lost-answer' },
    ];
    const calls = Array.from({ length: 16 }, () => refund('a'));
    const alone = replay([rules[0]!], calls).picked;
    // Calls of other operations in between draw nothing, so the same calls meet the rule.
    const mixed = calls.flatMap((call) => [call, { operation: 'reverse' as const }]);
    const both = replay(rules, mixed).picked.filter((_, index) => index % 2 === 0);
    expect(both).toEqual(alone.map((index) => index ?? 1));
  });

  it('leaves the rules it was given unchanged', () => {
    const armed = armRules([{ operation: 'refund', effect: 'unavailable', times: 1 }]);
    const before = structuredClone(armed);
    pickFault(armed, refund('a'));
    expect(armed).toEqual(before);
  });
});
