import type { CampaignResult } from './run.ts';

/** The run as a person reads it: the seed first (to replay it), counts, then each verdict. */
export function report(result: CampaignResult): string {
  const { counts, settings } = result;
  const lines = [
    `seed ${result.seed} — replay: pnpm campaign --seed ${result.seed} --seconds ${Math.round(result.runMs / 1000)}${result.topology.natsNodes > 1 ? ' --cluster' : ''}`,
    `${result.topology.natsNodes} NATS server(s), ${result.topology.replicas} replica(s) of each service`,
    `ran ${Math.round(result.runMs / 1000)} s; window ${settings.windowMs} ms, sweeper every ${settings.sweepIntervalMs} ms, partner lookups ${settings.collation}; ` +
      (result.settledInMs === null
        ? 'did not settle in time'
        : `settled in ${Math.round(result.settledInMs / 1000)} s`),
    '',
    'payments (channel, reference kind, status):',
    ...table(counts.payments),
    `requests ${counts.requests}, refunds acknowledged ${counts.refunds}, receipts ${counts.receipts}, ` +
      `webhooks received ${counts.webhooks.received} (${counts.webhooks.distinct} distinct events)`,
    '',
    'faults:',
    ...(Object.keys(counts.faults).length ? table(counts.faults) : ['  none']),
    ...failovers(counts.postgresFailoverMs),
    '',
    'journeys:',
    ...table(counts.journeys),
    '',
    ...result.coverage,
    '',
    ...(result.ended
      ? [
          `ENDED EARLY: ${result.ended}`,
          `stages reached: ${result.stages.map((stage) => `${stage.name} (${stage.at.slice(11, 19)})`).join(', ')}`,
          '',
        ]
      : []),
    'invariants:',
  ];
  for (const verdict of result.verdicts) {
    const ok = verdict.violations.length === 0;
    lines.push(`  ${ok ? 'ok  ' : 'FAIL'} ${verdict.name} (${verdict.checked} checked)`);
    for (const violation of verdict.violations.slice(0, 25)) lines.push(`         ${violation}`);
    if (verdict.violations.length > 25)
      lines.push(`         … ${verdict.violations.length - 25} more`);
  }
  lines.push('', `logs: ${result.logDir}`);
  return lines.join('\n');
}

export function violationsOf(result: CampaignResult): number {
  return result.verdicts.reduce((sum, verdict) => sum + verdict.violations.length, 0);
}

/** What the Postgres failovers cost: the time until writes committed again. */
function failovers(ms: number[]): string[] {
  if (ms.length === 0) return [];
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return [
    `  postgres failovers: ${ms.length}, writes again after p50 ${at(0.5)} ms, max ${sorted.at(-1)} ms`,
  ];
}

function table(counts: Record<string, number>): string[] {
  return Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, n]) => `  ${String(n).padStart(6)}  ${key}`);
}
