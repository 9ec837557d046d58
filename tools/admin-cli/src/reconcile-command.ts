import { Rpc } from '@dzpay/contracts';
import { requestRpc, type NatsConnection } from '@dzpay/platform';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { z } from 'zod';

type Report = z.infer<(typeof Rpc)['paymentsReconcile']['reply']>;
type ReconcileRequest = z.infer<(typeof Rpc)['paymentsReconcile']['request']>;

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A run pages through two days of orders at the card network: minutes, not seconds. */
const RECONCILE_TIMEOUT_MS = 10 * 60 * 1000;

/** Exit codes: an alarm was found; the reconciliation could not run (another one was). */
const EXIT_ALARM = 1;
const EXIT_NOT_RUN = 2;

/** `--since`: a duration back from now (90m, 12h, 2d) or an ISO timestamp. */
export function parseSince(value: string): ReconcileRequest {
  const duration = /^(\d+)([smhd])$/.exec(value.trim());
  if (duration) {
    const windowMs = Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS];
    if (windowMs > 0) return { windowMs };
  }
  if (/^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value))) {
    return { since: new Date(value).toISOString() };
  }
  throw new InvalidArgumentError('a duration (90m, 12h, 2d) or an ISO timestamp');
}

/** Centimes as DZD with two decimals; `-` for none. */
function dzd(centimes: number | null): string {
  return centimes === null ? '-' : (centimes / 100).toFixed(2);
}

/** Columns padded to their widest cell; those from `numbersFrom` on aligned right. */
function table(rows: string[][], numbersFrom: number): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) =>
    row
      .map((cell, column) =>
        column >= numbersFrom ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!),
      )
      .join('  ')
      .trimEnd(),
  );
}

/** The report as an operator reads it: the window, each mode, the discrepancies, the counts. */
export function formatReport(report: Report): string {
  if (!report.ran) return `reconciliation not run: ${report.reason ?? 'unknown reason'}`;
  const lines = [`reconciliation of the orders registered ${report.since} .. ${report.until}`];
  for (const mode of report.modes) {
    const detail =
      mode.outcome === 'checked' ? `${mode.ordersSeen} orders` : `${mode.outcome}: ${mode.reason}`;
    lines.push(`  ${mode.mode}: ${detail}`);
  }
  lines.push('');
  if (report.discrepancies.length === 0) {
    lines.push('no discrepancy');
  } else {
    const header = ['KIND', 'OUTCOME', 'MODE', 'PAYMENT', 'ORDER', 'DZPAY', 'NETWORK', 'AT STAKE'];
    const rows = report.discrepancies.map((d) => [
      d.kind,
      d.outcome,
      d.mode,
      d.paymentId ?? '-',
      d.orderId ?? '-',
      dzd(d.dzpayAmount),
      dzd(d.networkAmount),
      dzd(d.amount),
    ]);
    const [head, ...body] = table([header, ...rows], 5);
    lines.push(head!);
    body.forEach((line, i) => lines.push(line, `    ${report.discrepancies[i]!.detail}`));
    lines.push('(amounts in DZD)');
    if (report.omitted > 0) lines.push(`${report.omitted} more not listed: see payments' logs`);
  }
  const c = report.counts;
  lines.push(
    '',
    `orders seen ${c.ordersSeen}, payments matched ${c.paymentsMatched}, in flight ${c.inFlight}, ` +
      `fixed ${c.fixed}, alarms ${c.alarms}, busy ${c.busy}`,
  );
  return lines.join('\n');
}

/**
 * `dzpay reconcile`: asks payments (over NATS) to reconcile now and prints its report.
 * What each kind means and what to do: docs/runbook.md, Reconciliation.
 */
export function addReconcileCommand(
  program: Command,
  deps: {
    nats: () => Promise<NatsConnection>;
    natsPrefix: string;
    print: (text: string) => void;
    json: () => boolean;
    fail: (message: string, exitCode: number) => never;
  },
): void {
  program
    .command('reconcile')
    .description(
      "compare every card network order of the window with dzpay's records (needs payments running); " +
        `exits ${EXIT_ALARM} when an alarm is found, ${EXIT_NOT_RUN} when another reconciliation was running`,
    )
    .addOption(
      new Option('--since <when>', 'how far back: a duration (90m, 12h, 2d) or an ISO timestamp')
        .argParser(parseSince)
        .default({ windowMs: 2 * UNIT_MS.d }, '2d'),
    )
    .action(async (options: { since: ReconcileRequest }) => {
      const report = await requestRpc(
        await deps.nats(),
        deps.natsPrefix,
        Rpc.paymentsReconcile,
        options.since,
        { timeoutMs: RECONCILE_TIMEOUT_MS },
      );
      deps.print(deps.json() ? JSON.stringify(report) : formatReport(report));
      if (!report.ran) deps.fail('reconciliation not run; try again later', EXIT_NOT_RUN);
      if (report.counts.alarms > 0) {
        deps.fail(
          `${report.counts.alarms} alarm(s): see docs/runbook.md, Reconciliation`,
          EXIT_ALARM,
        );
      }
    });
}
