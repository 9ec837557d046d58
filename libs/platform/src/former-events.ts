import type { JetStreamManager } from '@nats-io/jetstream';
import { prefixed } from './nats.ts';

/**
 * How long after the last event published under a stream's former subjects a reader
 * still reads the whole stream. During a rollout, replicas of the publisher's former
 * version may still be running, and they publish on the former subjects, which a
 * narrowed filter would skip for good. An hour outlasts any rollout that finishes.
 */
export const FORMER_QUIET_MS = 60 * 60_000;

/**
 * Whether a reader at `position` (the highest stream sequence it acknowledged) could
 * still meet an event under the stream's former subjects: one lies ahead of it, or one
 * was published less than `quietMs` ago. The last event under them says both.
 */
export async function formerEventsAhead(options: {
  jsm: JetStreamManager;
  stream: string;
  prefix: string;
  formerSubjects: readonly string[];
  position: number;
  quietMs: number;
  now?: () => number;
}): Promise<boolean> {
  const now = options.now ?? Date.now;
  for (const subject of options.formerSubjects) {
    const last = await options.jsm.streams.getMessage(options.stream, {
      last_by_subj: prefixed(options.prefix, subject),
    });
    if (last === null) continue;
    if (last.seq > options.position || now() - last.time.getTime() < options.quietMs) return true;
  }
  return false;
}
