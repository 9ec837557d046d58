import { z } from 'zod';

/**
 * Fault injection for tests: rules that make the sandbox behave like a network that is
 * slow, down, loses answers, holds calls, acts on a call long after its client gave up,
 * or answers an errorCode without acting. This file is the pure part (the rules, which
 * rule a call meets, the seeded draws); holding calls and counting them live in
 * `fault-injector.ts`.
 */

/** The calls a rule can target: the REST operations, and `pay`, the card form's submit. */
export const FaultOperation = z.enum([
  'register',
  'getOrderStatusExtended',
  'confirmOrder',
  'refund',
  'reverse',
  'getLastOrdersForMerchants',
  'pay',
]);
export type FaultOperation = z.infer<typeof FaultOperation>;
export const FAULT_OPERATIONS = FaultOperation.options;

export const FaultEffect = z.enum([
  'latency',
  'unavailable',
  'lost-answer',
  'hang',
  'late',
  'error-code',
]);
export type FaultEffect = z.infer<typeof FaultEffect>;

/** The effects that take `ms`. */
const TIMED_EFFECTS: ReadonlySet<FaultEffect> = new Set(['latency', 'hang', 'late']);

/** Node's timers overflow past this (and fire at once), so longer delays are refused. */
const MAX_TIMER_MS = 2_147_483_647;

const ruleFields = {
  /** Names the rule in GET /_control/faults; nothing else reads it. */
  id: z.string().min(1).max(64).optional(),
  operation: FaultOperation,
  effect: FaultEffect,
  /**
   * The delay of `latency`; the longest hold of `hang` (absent: until released); how
   * long after the lost call `late` executes it.
   */
  ms: z.int().min(0).max(MAX_TIMER_MS).optional(),
  /** `error-code`: the errorCode answered, any but 0 ("1" to "9999"). */
  errorCode: z
    .string()
    .regex(/^[1-9]\d{0,3}$/, 'an errorCode other than 0, in digits')
    .optional(),
  /** `error-code`: the errorMessage answered; BPC's documented text when absent. */
  errorMessage: z.string().min(1).max(512).optional(),
  /** The chance that a matching call is affected; 1 when absent. */
  probability: z.number().min(0).max(1).optional(),
  /** Only calls about these orders. */
  orderIds: z.array(z.string().min(1)).min(1).optional(),
  /** Only calls about these order numbers: the only filter register can have. */
  orderNumbers: z.array(z.string().min(1)).min(1).optional(),
  /** Affects at most this many calls, then the rule is spent. */
  times: z.int().positive().optional(),
  /** Seeds the rule's own generator (its low 32 bits), so a run replays the same draws; 1 when absent. */
  seed: z.int().optional(),
};

/**
 * A rule is refused when part of it could never take effect, since a test that set it
 * would silently test nothing.
 */
export const FaultRule = z.strictObject(ruleFields).superRefine((rule, ctx) => {
  const refuse = (path: string, message: string) =>
    ctx.addIssue({ code: 'custom', path: [path], message });
  if ((rule.effect === 'latency' || rule.effect === 'late') && rule.ms === undefined)
    refuse('ms', `${rule.effect} needs ms`);
  if (rule.ms !== undefined && !TIMED_EFFECTS.has(rule.effect))
    refuse('ms', 'ms applies to latency, hang and late only');
  if (rule.effect === 'error-code' && rule.errorCode === undefined)
    refuse('errorCode', 'error-code needs errorCode');
  if (rule.effect !== 'error-code') {
    if (rule.errorCode !== undefined) refuse('errorCode', 'errorCode applies to error-code only');
    if (rule.errorMessage !== undefined)
      refuse('errorMessage', 'errorMessage applies to error-code only');
  }
  if (rule.effect === 'error-code' && rule.operation === 'pay')
    refuse('effect', 'pay is the card form: it has no errorCode');
  if (rule.orderIds && rule.operation === 'register')
    refuse('orderIds', 'register has no order id yet: use orderNumbers');
  if ((rule.orderIds || rule.orderNumbers) && rule.operation === 'getLastOrdersForMerchants')
    refuse(rule.orderIds ? 'orderIds' : 'orderNumbers', 'getLastOrdersForMerchants names no order');
});
export type FaultRule = z.infer<typeof FaultRule>;

/** PUT /_control/faults: the whole set of rules, in the order they are tried. */
export const FaultRulesBody = z
  .strictObject({ rules: z.array(FaultRule).max(100) })
  .superRefine(({ rules }, ctx) => {
    const ids = rules.flatMap((rule) => (rule.id === undefined ? [] : [rule.id]));
    if (new Set(ids).size !== ids.length)
      ctx.addIssue({ code: 'custom', path: ['rules'], message: 'rule ids must be unique' });
  });

/** A rule as GET /_control/faults shows it: with how many calls it affected. */
export const AppliedFaultRule = z.object({ ...ruleFields, applied: z.int().min(0) });
export type AppliedFaultRule = z.infer<typeof AppliedFaultRule>;

/** What a call is about, as far as the sandbox knows it when the call arrives. */
export interface FaultCall {
  operation: FaultOperation;
  orderId?: string | undefined;
  orderNumber?: string | undefined;
}

/** A rule in force: how often it applied, and the state of its generator. */
export interface ArmedRule {
  readonly rule: FaultRule;
  readonly applied: number;
  readonly draws: number;
}

export function armRules(rules: readonly FaultRule[]): ArmedRule[] {
  return rules.map((rule) => ({ rule, applied: 0, draws: (rule.seed ?? 1) | 0 }));
}

function isSpent(armed: ArmedRule): boolean {
  return armed.rule.times !== undefined && armed.applied >= armed.rule.times;
}

/** The operation and the order filters; an unknown order matches no filter. */
function matchesCall(rule: FaultRule, call: FaultCall): boolean {
  if (rule.operation !== call.operation) return false;
  if (rule.orderIds && !(call.orderId !== undefined && rule.orderIds.includes(call.orderId)))
    return false;
  if (
    rule.orderNumbers &&
    !(call.orderNumber !== undefined && rule.orderNumbers.includes(call.orderNumber))
  )
    return false;
  return true;
}

/**
 * mulberry32, one step: a well-known 32-bit generator, small enough to hold its state
 * in a number, so draws stay pure and a seed replays them exactly.
 */
export function nextRandom(state: number): { value: number; state: number } {
  const next = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(next ^ (next >>> 15), 1 | next);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return { value: ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296, state: next };
}

/**
 * The rule a call meets: the first one, in order, that matches it, is not spent and
 * wins its draw. Each rule tried draws once (even at probability 1, so a rule's draws
 * depend only on the calls it saw). Returns the rules as they are after the call.
 */
export function pickFault(
  armed: readonly ArmedRule[],
  call: FaultCall,
): { armed: ArmedRule[]; picked: number | null } {
  const after = [...armed];
  for (const [index, current] of armed.entries()) {
    if (isSpent(current) || !matchesCall(current.rule, call)) continue;
    const draw = nextRandom(current.draws);
    const wins = draw.value < (current.rule.probability ?? 1);
    after[index] = { ...current, draws: draw.state, applied: current.applied + (wins ? 1 : 0) };
    if (wins) return { armed: after, picked: index };
  }
  return { armed: after, picked: null };
}
