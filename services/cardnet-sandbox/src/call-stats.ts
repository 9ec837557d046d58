import { z } from 'zod';
import { FAULT_OPERATIONS, FaultOperation } from './domain/faults.ts';

const counts = z.record(FaultOperation, z.int().min(0));

/**
 * GET /_control/stats: calls received since the sandbox started, and calls being
 * handled now (a call held by a `hang` rule, or waiting out a latency, is in flight),
 * so a test can prove that N calls are held at the network at once.
 */
export const CallStats = z.object({ calls: counts, inFlight: counts });
export type CallStats = z.infer<typeof CallStats>;

export interface CallCounter {
  /** Counts a call that starts; the function returned ends it (only the first time). */
  begin(operation: FaultOperation): () => void;
  snapshot(): CallStats;
}

export function callCounter(): CallCounter {
  const zero = () =>
    Object.fromEntries(FAULT_OPERATIONS.map((operation) => [operation, 0])) as Record<
      FaultOperation,
      number
    >;
  const calls = zero();
  const inFlight = zero();
  return {
    begin(operation) {
      calls[operation] += 1;
      inFlight[operation] += 1;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        inFlight[operation] -= 1;
      };
    },
    snapshot: () => ({ calls: { ...calls }, inFlight: { ...inFlight } }),
  };
}
