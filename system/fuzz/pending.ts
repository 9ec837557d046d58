import type { Answer, FuzzRequest } from './http.ts';

/**
 * Failures the fuzzer found in files this suite's owners may not change, reported to
 * their owners (docs/fuzzing.md, "Reported bugs"). Each is matched narrowly
 * (the request's shape and the exact answer), counted apart and printed by `pnpm fuzz`;
 * anything else that breaks a property still fails the run. Delete an entry when its
 * fix lands: the run then holds the fixed code to the property again.
 */
export interface PendingFix {
  id: string;
  /** Where the fix goes and what it is. */
  fix: string;
  matches(request: FuzzRequest, answer: Answer): boolean;
}

// None pending: add one only with its owner told and a fix under way.
const PENDING_FIXES: readonly PendingFix[] = [];

/** The pending fix that explains this failure, if one does. */
export function pendingFixFor(request: FuzzRequest, answer: Answer): PendingFix | undefined {
  return PENDING_FIXES.find((pending) => pending.matches(request, answer));
}
