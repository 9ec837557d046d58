import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ADMIN_CLI_ENTRY } from '@dzpay/testkit/processes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { satimCardNetwork } from '../services/payments/src/card-network/satim-client.ts';
import { startPaymentsHarness, type PaymentsHarness } from '../services/payments/test/harness.ts';

/**
 * `pnpm dzpay reconcile` as an operator runs it: the CLI process asks payments over NATS,
 * payments reconciles with the real sandbox, and the CLI prints the report and says by
 * its exit code whether an alarm was found.
 */

const run = promisify(execFile);

let h: PaymentsHarness;
beforeAll(async () => {
  h = await startPaymentsHarness('cli-reconcile');
}, 120_000);
afterAll(() => h?.stop());

async function dzpay(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [ADMIN_CLI_ENTRY, ...args], {
      env: { ...process.env, ...h.infra.env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('pnpm dzpay reconcile', () => {
  it('prints a clean report and exits 0 when nothing differs', async () => {
    const { paymentId, checkoutToken } = await h.register();
    await h.payCard(await h.toCardForm(checkoutToken));
    await h.comeBack(paymentId);

    const result = await dzpay('reconcile', '--since', '1h');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('test: 1 orders');
    expect(result.stdout).toContain('live: skipped: no card network configured');
    expect(result.stdout).toContain('no discrepancy');
    expect(result.stdout).toMatch(/orders seen 1, payments matched 1, .*alarms 0/);
  });

  it('prints the discrepancies as a table and exits 1 on an alarm', async () => {
    const { paymentId, checkoutToken } = await h.register();
    await h.payCard(await h.toCardForm(checkoutToken));
    await h.comeBack(paymentId);
    const [row] = await h.db<{ cardnet_order_id: string }[]>`
      select cardnet_order_id from payments where id = ${paymentId}`;
    // A refund made in the card network's back office, not through dzpay.
    await satimCardNetwork({
      baseUrl: h.sandbox.url,
      userName: 'sandbox',
      password: 'sandbox',
      timeoutMs: 2_000,
    }).refund(row!.cardnet_order_id, 30_000);

    const result = await dzpay('reconcile', '--since', '2d');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('1 alarm(s): see docs/runbook.md, Reconciliation');
    const line = result.stdout.split('\n').find((text) => text.includes(paymentId));
    expect(line).toMatch(/^refunded-beyond-intents\s+alarm\s+test\s/);
    expect(line).toContain(row!.cardnet_order_id);
    expect(line).toMatch(/0\.00\s+300\.00\s+300\.00$/);
    expect(result.stdout).toContain('the network refunded 30000 centimes more than dzpay asked');

    const json = await dzpay(
      '--json',
      'reconcile',
      '--since',
      new Date(Date.now() - 60_000 * 60).toISOString(),
    );
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as { counts: { alarms: number } };
    expect(report.counts.alarms).toBe(1);
  });

  it('refuses a --since it cannot read, and says its exit codes in its help', async () => {
    const bad = await dzpay('reconcile', '--since', 'yesterday');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('a duration (90m, 12h, 2d) or an ISO timestamp');
    const help = await dzpay('reconcile', '--help');
    expect(help.stdout).toContain('exits 1 when an alarm is found');
  });
});
