import type { Rng } from './rng.ts';

/** What a campaign run is asked to do (the command line). */
export interface CampaignOptions {
  seed: number;
  /** How long payers, merchants and faults run before the system is left to settle. */
  runMs: number;
  /** Payers acting at the same time. */
  payers: number;
  /** Inject faults (off: the same traffic on a quiet system). */
  faults: boolean;
  /** Where the services' logs and the report go. */
  outDir: string;
  /** Run on a 3-node JetStream cluster with every asset replicated 3 times. */
  cluster: boolean;
  /** Draws faults of these kinds only (a focused run), or of every kind (null). */
  onlyFaults?: readonly string[] | null;
  /** Weights the actors toward one area (more of its actions), or none. */
  focus: Focus | null;
}

/** The areas `--focus` can weight the run toward. */
export const FOCUSES = ['refunds', 'cancels', 'agency', 'checkout', 'status'] as const;
export type Focus = (typeof FOCUSES)[number];

/**
 * The system's settings for one run. Time is compressed (a payment window of seconds,
 * not 15 minutes) so that expiries, late payers and the sweeper happen many times a
 * minute. Some settings come from the seed: how far behind the sweeper is decides how
 * often a payer arrives between a window's end and its settlement.
 */
export interface CampaignSettings {
  windowMs: number;
  sweepIntervalMs: number;
  cardnetTimeoutMs: number;
  refundQuietMs: number;
  /** A lost refund not in its order's history this long after it was asked is taken as never made. */
  refundHorizonMs: number;
  /** The settlement lease (payments' SETTLE_LEASE_MS): a pause fault outlasts it. */
  settleLeaseMs: number;
  /** How the partner's lookups compare references (a case-insensitive one is common). */
  collation: 'exact' | 'case-insensitive' | 'case-and-unicode-insensitive';
  webhookRetryScheduleMs: number[];
  /** After a fault ends, a 5xx is still the fault's (restarts, reconnects, leases). */
  faultGraceMs: number;
  /** Longest wait, after the run, for every attempt, refund, event and webhook to settle. */
  settleTimeoutMs: number;
}

export function campaignSettings(rng: Rng): CampaignSettings {
  const windowMs = rng.pick([8_000, 12_000, 20_000]);
  const sweepIntervalMs = rng.pick([1_000, 3_000, 8_000]);
  const cardnetTimeoutMs = 3_000;
  const refundQuietMs = 5_000;
  return {
    windowMs,
    sweepIntervalMs,
    cardnetTimeoutMs,
    refundQuietMs,
    // Longer than any late refund the faults hold (LATE_REFUND_MAX_MS), so every one is
    // found in its order's history rather than taken as never made.
    refundHorizonMs: cardnetTimeoutMs + refundQuietMs + 30_000,
    settleLeaseMs: 3_000,
    // Drawn last, so the settings above stay what a seed gave them before.
    collation: rng.pick(['case-insensitive', 'case-insensitive', 'case-and-unicode-insensitive']),
    // Nine tries over about 40 s: a partner failing for a fault's length still gets it.
    webhookRetryScheduleMs: [0, 250, 500, 1_000, 2_000, 4_000, 8_000, 10_000, 15_000],
    faultGraceMs: 12_000,
    settleTimeoutMs: windowMs + 90_000,
  };
}
