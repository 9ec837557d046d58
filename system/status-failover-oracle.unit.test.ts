import { describe, expect, it } from 'vitest';
import {
  examplesOf,
  findViolations,
  freeWhileHeld,
  latencies,
  spreadOf,
  type Attempt,
  type KillWindow,
  type Read,
} from '../bench/status-failover-oracle.ts';

// The status-failover oracle (bench/status-failover-oracle.ts) on hand-made histories.

const attempt = (overrides: Partial<Attempt>): Attempt => ({
  reference: 'R',
  openedAt: 0,
  formUrlAt: 100,
  formSentAt: 1_000,
  card: 'declined',
  outcome: 'declined',
  paidAt: null,
  ...overrides,
});

const read = (sentAt: number, answeredAt: number, stage: string | null, status = 200): Read => ({
  reference: 'R',
  sentAt,
  answeredAt,
  status,
  stage,
});

const leaderKill: KillWindow = {
  kind: 'payments-leader',
  nth: 1,
  target: 'n2',
  from: 50,
  to: 10_050,
};

describe('the status-failover oracle', () => {
  it('flags a free read whose whole span lies on the card form, and names its window', () => {
    const violations = findViolations(
      [read(200, 210, 'not_found'), read(300, 320, 'released'), read(400, 410, 'refunded')],
      [attempt({})],
      [leaderKill],
    );
    expect(violations.map((v) => [v.kind, v.read.stage, v.window?.kind])).toEqual([
      ['free-while-held', 'not_found', 'payments-leader'],
      ['free-while-held', 'released', 'payments-leader'],
      ['free-while-held', 'refunded', 'payments-leader'],
    ]);
  });

  it('lets a free read pass when its span leaves the held span, or the stage is not free', () => {
    const violations = findViolations(
      [
        read(50, 150, 'not_found'), // sent before the form's URL came back
        read(900, 1_100, 'released'), // answered after the card was sent
        read(1_200, 1_210, 'released'), // between two attempts
        read(500, 510, 'locked'),
        read(500, 510, 'paid'),
      ],
      [attempt({})],
      [],
    );
    expect(violations).toEqual([]);
  });

  it('holds a paid reference for good, and only another reference free', () => {
    const paid = attempt({ card: 'approved', outcome: 'paid', paidAt: 2_000 });
    const violations = findViolations(
      [
        read(1_500, 1_600, 'locked'),
        read(3_000, 3_010, 'paid'),
        read(90_000, 90_010, 'released'),
        { ...read(90_000, 90_010, 'not_found'), reference: 'OTHER' },
      ],
      [paid],
      [],
    );
    expect(violations.map((v) => [v.read.reference, v.read.stage, v.held?.why])).toEqual([
      ['R', 'released', 'paid'],
    ]);
  });

  it('flags every answer but 200, held or not', () => {
    const violations = findViolations(
      [read(5_000, 10_000, null, 503), read(20_000, 35_000, null, 0)],
      [],
      [leaderKill],
    );
    expect(violations.map((v) => [v.kind, v.read.status, v.window?.nth ?? null])).toEqual([
      ['not-200', 503, 1],
      ['not-200', 0, null],
    ]);
  });

  it('counts a read sent just before a kill and answered after it in the kill window', () => {
    const [violation] = findViolations([read(40, 5_040, null, 503)], [], [leaderKill]);
    expect(violation?.window).toBe(leaderKill);
    expect(findViolations([read(10_050, 10_060, null, 503)], [], [leaderKill])[0]?.window).toBe(
      undefined,
    );
  });

  it('splits latencies by the window the read was in flight in, nearest-rank', () => {
    const replicaKill: KillWindow = {
      ...leaderKill,
      kind: 'status-replica',
      from: 20_000,
      to: 30_000,
    };
    const reads = [
      read(100, 110, 'locked'),
      read(25_000, 30_000, 'locked'),
      read(40_000, 40_002, 'paid'),
    ];
    const spreads = latencies(reads, [leaderKill, replicaKill]);
    expect(spreads.overall).toEqual({ reads: 3, p50: 10, p99: 5_000, max: 5_000 });
    expect(spreads['payments-leader']).toEqual({ reads: 1, p50: 10, p99: 10, max: 10 });
    expect(spreads['status-replica']).toEqual({ reads: 1, p50: 5_000, p99: 5_000, max: 5_000 });
    expect(spreads['outside windows']).toEqual({ reads: 1, p50: 2, p99: 2, max: 2 });
    expect(spreadOf([])).toEqual({ reads: 0, p50: null, p99: null, max: null });
  });

  it('sums up what the free reads hid, and picks examples of every window and kind', () => {
    const violations = findViolations(
      [
        read(200, 210, 'not_found'),
        read(300, 320, 'released'),
        read(5_100, 5_140, 'released'),
        read(20_000, 20_100, null, 503),
      ],
      [attempt({}), attempt({ formUrlAt: 5_000, formSentAt: 6_000 })],
      [leaderKill],
    );
    expect(freeWhileHeld(violations)).toEqual({ reads: 3, spans: 2, latestMs: 220 });
    expect(freeWhileHeld([])).toEqual({ reads: 0, spans: 0, latestMs: null });
    expect(examplesOf(violations, 1, 20).map((v) => v.read.sentAt)).toEqual([200, 20_000]);
    expect(examplesOf(violations, 5, 2).map((v) => v.read.sentAt)).toEqual([200, 300]);
  });
});
