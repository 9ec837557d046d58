import autocannon from 'autocannon';
import { registerPaymentOptions } from './requests.ts';
import { settings } from './settings.ts';
import {
  measurePaymentLag,
  publishBurst,
  type LagSummary,
  type StatusBenchDeps,
} from './status.ts';

// The full-path lag rows measured with the stack busy: registrations at half their rate,
// and the status projection behind a burst of events. See docs/benchmarks.md.

export interface BusyLagDeps {
  /** The bench's deps, asking the public endpoint as a partner would. */
  asPartner: StatusBenchDeps;
  publicBaseUrl: string;
  key: string;
  /** This run's tag, in every reference it makes. */
  run: string;
}

/**
 * The full-path lag while register-payment runs at `rate` requests per second (half
 * the rate it reached alone): autocannon keeps that rate up until the samples are in.
 */
export async function lagUnderRegisterLoad(
  deps: BusyLagDeps,
  rate: number,
  more: (taken: number) => boolean,
): Promise<LagSummary & { loadReqPerSec: number; loadNon2xx: number }> {
  const { asPartner, publicBaseUrl, key, run } = deps;
  const overallRate = Math.max(1, Math.round(rate));
  console.log(`status lag (full path) while register-payment runs at ${overallRate} req/s`);
  const load = autocannon({
    ...registerPaymentOptions(publicBaseUrl, key, `${run}-l`),
    connections: settings.connections,
    overallRate,
    duration: 600,
  }) as unknown as autocannon.Instance & PromiseLike<autocannon.Result>;
  // Let the load settle before the first sample.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  try {
    const lag = await measurePaymentLag(
      asPartner,
      publicBaseUrl,
      `${run}-l`,
      more,
      settings.lagGapMs,
    );
    load.stop();
    const result = await load;
    return {
      ...lag,
      loadReqPerSec: Math.round(result.requests.average),
      loadNon2xx: result.non2xx + result.errors + result.timeouts,
    };
  } finally {
    load.stop();
  }
}

/**
 * The full-path lag while status projects a burst of BENCH_BURST_EVENTS events: one
 * sample after another from the burst's first publish until its last event is visible.
 */
export async function lagDuringBurst(
  deps: BusyLagDeps & { status: StatusBenchDeps },
): Promise<LagSummary & { burstProjectedMs: number }> {
  const { asPartner, publicBaseUrl, run } = deps;
  console.log(`status lag (full path) during a burst of ${settings.burstEvents} events`);
  let projected = false;
  const burst = publishBurst(deps.status, `${run}-b`, settings.burstEvents).finally(
    () => (projected = true),
  );
  // At least one sample, even if the burst is projected before the first one ends.
  const lag = await measurePaymentLag(
    asPartner,
    publicBaseUrl,
    `${run}-b`,
    (taken) => taken === 0 || !projected,
    settings.lagGapMs,
  );
  const { projectedMs } = await burst;
  return { ...lag, burstProjectedMs: projectedMs };
}
