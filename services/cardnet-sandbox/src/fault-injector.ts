import { setTimeout as sleep } from 'node:timers/promises';
import {
  armRules,
  pickFault,
  type AppliedFaultRule,
  type ArmedRule,
  type FaultCall,
  type FaultRule,
} from './domain/faults.ts';

/** The rule a call met, and the signal that releases the call if the rule holds it. */
interface Fault {
  rule: FaultRule;
  /** Aborted when the rule is removed (any PUT or DELETE of the rules) or the sandbox stops. */
  released: AbortSignal;
}

/**
 * The fault rules in force, in memory like the orders. Node runs one handler at a time
 * between awaits, so picking a rule and counting it cannot interleave with another call.
 */
export interface FaultInjector {
  /** Puts these rules in force, in place of all others, whose held calls go on. */
  replace(rules: readonly FaultRule[]): void;
  rules(): AppliedFaultRule[];
  faultFor(call: FaultCall): Fault | null;
}

export function faultInjector(stopping: AbortSignal): FaultInjector {
  let armed: ArmedRule[] = [];
  let removal = new AbortController();
  return {
    replace(rules) {
      removal.abort();
      removal = new AbortController();
      armed = armRules(rules);
    },
    rules: () => armed.map(({ rule, applied }) => ({ ...rule, applied })),
    faultFor(call) {
      const result = pickFault(armed, call);
      armed = result.armed;
      const picked = result.picked === null ? undefined : armed[result.picked];
      if (!picked) return null;
      return { rule: picked.rule, released: AbortSignal.any([removal.signal, stopping]) };
    },
  };
}

/** Waits `ms`, or until `signal` aborts, whichever comes first; without `ms`, until it aborts. */
export function holdCall(ms: number | undefined, signal: AbortSignal): Promise<void> {
  // sleep rejects only when the signal aborts, which ends the hold like the delay does.
  if (ms !== undefined) return sleep(ms, undefined, { signal }).catch(() => {});
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
