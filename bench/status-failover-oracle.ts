// The status-failover scenario's oracle (bench/status-failover.ts, docs/status-failover.md).
// It knows nothing of how status computes a stage: it shares no code with services/status
// nor with libs/contracts' stage logic. What it knows comes from the payers' side alone:
// when a payer surely had a live attempt on a reference, and when a reference was surely
// paid. Every time is milliseconds of this process's performance.now().

/** What a read may answer that tells a partner the reference is free to sell again. */
const FREE_STAGES: ReadonlySet<string> = new Set(['not_found', 'released', 'refunded']);

/** One payer's attempt on a product reference, as the payer lived it. */
export interface Attempt {
  reference: string;
  /** The payer asked for the product (POST /pay). */
  openedAt: number;
  /** The card network's form URL came back: payments had committed the attempt by then. */
  formUrlAt: number | null;
  /** The payer sent the card form: from here the attempt may end either way. */
  formSentAt: number | null;
  card: 'approved' | 'declined';
  /**
   * paid / declined: what the return route said. refused: POST /pay answered 409 (the
   * reference was held by an attempt the payer never got a form for). unknown: the return
   * route never said. error: the journey broke before the card form was sent.
   */
  outcome: 'paid' | 'declined' | 'refused' | 'unknown' | 'error';
  /** The return route said paid: held from then on, for good (no refunds in this scenario). */
  paidAt: number | null;
  /** Why the outcome is refused, unknown or error. */
  detail?: string;
}

/** One status read through the gateway. */
export interface Read {
  reference: string;
  sentAt: number;
  answeredAt: number;
  /** The HTTP status; 0 when no answer came (connection error, 15 s timeout). */
  status: number;
  /** `data.stage` of a 200 answer, else null. */
  stage: string | null;
  error?: string;
}

export type KillKind = 'status-replica' | 'payments-leader';

/** From a kill until `to` (the kill + the window): the reads in flight in it are the kill's. */
export interface KillWindow {
  kind: KillKind;
  /** 1-based, per kind. */
  nth: number;
  /** The replica or NATS node killed. */
  target: string;
  from: number;
  to: number;
}

/** A span in which a reference must not read free. */
export interface Held {
  reference: string;
  from: number;
  /** Infinity: paid, held for good. */
  to: number;
  why: string;
}

export interface Violation {
  kind: 'free-while-held' | 'not-200';
  read: Read;
  held?: Held;
  window?: KillWindow;
}

/**
 * Every span in which a payer knew the reference held: from the card form's URL to the
 * card form sent (the attempt is live, whatever the stream carried), and from the return
 * route's "paid" onwards.
 */
export function heldSpans(attempts: readonly Attempt[]): Map<string, Held[]> {
  const spans = new Map<string, Held[]>();
  const add = (held: Held) => {
    const list = spans.get(held.reference) ?? [];
    list.push(held);
    spans.set(held.reference, list);
  };
  for (const attempt of attempts) {
    const { reference, formUrlAt, formSentAt, paidAt } = attempt;
    if (formUrlAt !== null && formSentAt !== null && formSentAt > formUrlAt) {
      add({ reference, from: formUrlAt, to: formSentAt, why: 'payer on the card form' });
    }
    if (paidAt !== null) add({ reference, from: paidAt, to: Infinity, why: 'paid' });
  }
  return spans;
}

/**
 * The kill window the read was in flight in, if any: sent before the window ended and
 * answered after it began (a read sent just before the kill and caught by it is the
 * kill's).
 */
export function windowOf(read: Read, windows: readonly KillWindow[]): KillWindow | undefined {
  return windows.find((window) => read.sentAt < window.to && read.answeredAt >= window.from);
}

/**
 * A free answer (not_found, released, refunded) whose whole span [sentAt, answeredAt]
 * lies inside a held span of its reference; any answer but 200 (5xx, 4xx, none).
 */
export function findViolations(
  reads: readonly Read[],
  attempts: readonly Attempt[],
  windows: readonly KillWindow[],
): Violation[] {
  const spans = heldSpans(attempts);
  const violations: Violation[] = [];
  for (const read of reads) {
    const window = windowOf(read, windows);
    const inWindow = window ? { window } : {};
    if (read.status !== 200) {
      violations.push({ kind: 'not-200', read, ...inWindow });
      continue;
    }
    if (read.stage === null || !FREE_STAGES.has(read.stage)) continue;
    const held = (spans.get(read.reference) ?? []).find(
      (span) => span.from <= read.sentAt && read.answeredAt <= span.to,
    );
    if (held) violations.push({ kind: 'free-while-held', read, held, ...inWindow });
  }
  return violations.sort((a, b) => a.read.sentAt - b.read.sentAt);
}

/**
 * The free-while-held violations among `violations`: how many reads, how many held spans
 * (attempts on the card form, paid references) they hid, and the latest answer still
 * free after its span began, in ms from the span's start (the payer reaching the form).
 */
export function freeWhileHeld(violations: readonly Violation[]): {
  reads: number;
  spans: number;
  latestMs: number | null;
} {
  const free = violations.filter((violation) => violation.kind === 'free-while-held');
  const spans = new Set(free.map((violation) => violation.held));
  const after = free.map((violation) => violation.read.answeredAt - violation.held!.from);
  return {
    reads: free.length,
    spans: spans.size,
    latestMs: after.length === 0 ? null : Math.round(Math.max(...after)),
  };
}

/**
 * At most `perGroup` violations of each kill window and kind (outside the windows is a
 * group too), `limit` in all, in time order: examples of every kind of failure, not the
 * first twenty reads of the first kill.
 */
export function examplesOf(
  violations: readonly Violation[],
  perGroup: number,
  limit: number,
): Violation[] {
  const taken = new Map<string, number>();
  const examples: Violation[] = [];
  for (const violation of violations) {
    const window = violation.window;
    const group = `${window ? `${window.kind} ${window.nth}` : 'outside'} ${violation.kind}`;
    const n = taken.get(group) ?? 0;
    if (n >= perGroup) continue;
    taken.set(group, n + 1);
    examples.push(violation);
    if (examples.length === limit) break;
  }
  return examples;
}

/** Latencies in ms, nearest-rank percentiles. */
export interface Spread {
  reads: number;
  p50: number | null;
  p99: number | null;
  max: number | null;
}

export function spreadOf(latencies: readonly number[]): Spread {
  const sorted = [...latencies].sort((a, b) => a - b);
  const rank = (q: number) =>
    sorted.length === 0 ? null : Math.round(sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!);
  return { reads: sorted.length, p50: rank(0.5), p99: rank(0.99), max: rank(1) };
}

/** Status latency (answeredAt − sentAt) overall, outside every window, and per kill kind. */
export function latencies(
  reads: readonly Read[],
  windows: readonly KillWindow[],
): Record<'overall' | 'outside windows' | KillKind, Spread> {
  const latency = (read: Read) => read.answeredAt - read.sentAt;
  const of = (keep: (window: KillWindow | undefined) => boolean) =>
    spreadOf(reads.filter((read) => keep(windowOf(read, windows))).map(latency));
  return {
    overall: spreadOf(reads.map(latency)),
    'outside windows': of((window) => window === undefined),
    'status-replica': of((window) => window?.kind === 'status-replica'),
    'payments-leader': of((window) => window?.kind === 'payments-leader'),
  };
}

/** One line per violation, times in seconds since `t0`. */
export function describeViolation(violation: Violation, t0: number): string {
  const s = (at: number) => (Number.isFinite(at) ? `+${((at - t0) / 1000).toFixed(3)}s` : 'on');
  const { read, held, window } = violation;
  const span = `[${s(read.sentAt)}, ${s(read.answeredAt)}]`;
  const answer =
    read.status === 200
      ? `read ${read.stage}`
      : `answered ${read.status || `nothing (${read.error ?? 'no answer'})`}`;
  const during = window
    ? ` during ${window.kind} kill #${window.nth} (${window.target}, at ${s(window.from)})`
    : ' outside every kill window';
  const why = held ? ` while held (${held.why} ${s(held.from)} to ${s(held.to)})` : '';
  return `${read.reference} ${answer} ${span} in ${Math.round(read.answeredAt - read.sentAt)} ms${why}${during}`;
}
