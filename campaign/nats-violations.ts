import type { Verdict } from './invariants.ts';

/**
 * 8. No service was refused a subject by the NATS permissions (docs/nats-security.md):
 * a role table that forgot something a service does shows here as the servers' own
 * "Publish Violation" or "Subscription Violation" lines, even when the service rode it
 * out (a request that timed out and was retried, a consumer that re-attached).
 */
export function noPermissionViolations(serverLogs: string): Verdict {
  const lines = serverLogs.split('\n');
  const refused = lines.filter((line) => /\b(Publish|Subscription) Violation\b/.test(line));
  return {
    name: 'no NATS publish or subscription refused by the permissions',
    checked: lines.length,
    violations: refused.slice(0, 20).map((line) => line.replace(/^\[\d+\] \S+ \S+ /, '')),
  };
}
