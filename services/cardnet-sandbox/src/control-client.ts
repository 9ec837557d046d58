import { z } from 'zod';
import { CallStats } from './call-stats.ts';
import { SandboxCredentials } from './credentials.ts';
import { AppliedFaultRule, FaultRule } from './domain/faults.ts';
import { LedgerOperation, LedgerOrder } from './domain/ledger.ts';

export { AppliedFaultRule, CallStats, FaultRule, LedgerOperation, LedgerOrder, SandboxCredentials };
export type { FaultEffect, FaultOperation } from './domain/faults.ts';

/**
 * The sandbox's control API, typed, for tests: `@dzpay/cardnet-sandbox/control`. The
 * sandbox must run with SANDBOX_CONTROL=true. Every answer is checked against its
 * schema, so a test fails on a changed API instead of reading undefined.
 */
export interface SandboxControl {
  /** Replaces every rule (releasing calls held by the old ones); resolves to the rules set. */
  setFaults(rules: readonly FaultRule[]): Promise<FaultRule[]>;
  /** Removes every rule and releases every held call. */
  clearFaults(): Promise<void>;
  /** The rules in force, each with how many calls it affected. */
  faults(): Promise<AppliedFaultRule[]>;
  /** Every order the sandbox knows, as it is now. */
  ledger(): Promise<LedgerOrder[]>;
  stats(): Promise<CallStats>;
  /**
   * From now on the network accepts only these credentials: every REST call with the
   * merchant's own answers errorCode 5 (`errorMessage`, "Access denied" by default)
   * without acting. The card form keeps working.
   */
  setCredentials(credentials: SandboxCredentials): Promise<void>;
  /** Back to the configured credentials. */
  restoreCredentials(): Promise<void>;
}

const RulesAnswer = z.object({ rules: z.array(FaultRule) });
const AppliedRulesAnswer = z.object({ rules: z.array(AppliedFaultRule) });
const LedgerAnswer = z.object({ orders: z.array(LedgerOrder) });

/** A refused control call: a 400 carries zod's issues with the rules in `body`. */
export class SandboxControlError extends Error {
  readonly status: number;
  readonly body: string;

  constructor(status: number, body: string) {
    super(`sandbox control API answered ${status}: ${body.slice(0, 2000)}`);
    this.name = 'SandboxControlError';
    this.status = status;
    this.body = body;
  }
}

/** `baseUrl` is the sandbox's (startSandbox's `url`), not the control path. */
export function sandboxControl(baseUrl: string): SandboxControl {
  const base = baseUrl.replace(/\/+$/, '');
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${base}/_control/${path}`, {
      method,
      ...(body !== undefined && {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    });
    const text = await response.text();
    if (!response.ok) throw new SandboxControlError(response.status, text);
    return text === '' ? undefined : JSON.parse(text);
  };

  return {
    setFaults: async (rules) => RulesAnswer.parse(await call('PUT', 'faults', { rules })).rules,
    clearFaults: async () => {
      await call('DELETE', 'faults');
    },
    faults: async () => AppliedRulesAnswer.parse(await call('GET', 'faults')).rules,
    ledger: async () => LedgerAnswer.parse(await call('GET', 'ledger')).orders,
    stats: async () => CallStats.parse(await call('GET', 'stats')),
    setCredentials: async (credentials) => {
      await call('PUT', 'credentials', credentials);
    },
    restoreCredentials: async () => {
      await call('DELETE', 'credentials');
    },
  };
}
