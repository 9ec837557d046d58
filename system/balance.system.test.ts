import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { accountsRepository } from '@dzpay/accounts';
import { algiersDay, algiersMonth, type PayoutRecordReply } from '@dzpay/contracts';
import { ADMIN_CLI_ENTRY } from '@dzpay/testkit/processes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARDS, payByHttp } from './support/payer.ts';
import { payoutRecordArgs } from './support/payout-record.ts';
import { startStack, type Stack } from './support/stack.ts';
import { workbookOf } from './support/workbooks.ts';

const run = promisify(execFile);

let stack: Stack;
let merchant: Awaited<ReturnType<Stack['merchant']>>;

beforeAll(async () => {
  stack = await startStack('balance', { RATE_LIMIT_PER_MINUTE: '100000' }, { withPayments: true });
  merchant = await stack.merchant('Librairie Ibn Khaldoun', { walletId: 'W-BAL-1', feeDzd: 15 });
});
afterAll(() => stack?.stop());

/** `pnpm dzpay …` as an operator runs it, against this stack's database and NATS. */
async function dzpay(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [ADMIN_CLI_ENTRY, ...args], {
      env: { ...process.env, ...stack.infra.env, USER: 'amina' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** `pnpm dzpay payout record` for the merchant; `flags` go before the command. */
const recordPayout = (amount: string, wallet: string, reference: string, ...flags: string[]) =>
  dzpay(...flags, ...payoutRecordArgs(merchant.id, { amount, wallet, reference }));

let seq = 0;
async function paid(amount: number) {
  const client = stack.client(merchant.testKey);
  const payment = await client.registerPayment({
    amount,
    currency: 'DZD',
    reference: `BAL-${Date.now()}-${seq++}`,
  });
  await payByHttp(payment.checkoutUrl, CARDS.approved);
  return client.getPayment(payment.id);
}

describe('balance and payouts, end to end', () => {
  it('pay, refund part, a payout by the CLI: balance = captured − fees − refunds − payouts', async () => {
    const client = stack.client(merchant.testKey);
    const first = await paid(150_000);
    const second = await paid(200_050);
    expect([first.status, second.status]).toEqual(['success', 'success']);
    expect(first.total).toBe(151_500);
    await client.refundPayment(first.id, { amount: 50_000 });

    // More than the balance: refused, with what it may take, and nothing recorded.
    const tooMuch = await recordPayout('3000.51', 'W-BAL-1', 'BNA-TOO-MUCH');
    expect(tooMuch.code).toBe(1);
    expect(tooMuch.stderr).toContain(
      'payout of 3000.51 DZD is more than the available balance of 3000.50 DZD',
    );
    // A wallet that is not the merchant's: refused before payments is asked.
    const elsewhere = await recordPayout('10', 'W-OTHER', 'BNA-WRONG-WALLET');
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain('is not merchant');

    const recorded = await recordPayout('1000,25', 'W-BAL-1', 'BNA-2026-0001', '--json');
    expect(recorded.code, recorded.stderr).toBe(0);
    const reply = JSON.parse(recorded.stdout) as PayoutRecordReply;
    expect(reply).toMatchObject({
      replayed: false,
      balance: 300_050 - 100_025,
      payout: { amount: 100_025, wallet: 'W-BAL-1', reference: 'BNA-2026-0001' },
    });
    // The same bank reference again, twice: the same payout, nothing new, audited once.
    for (const amount of ['1000.25', '1000,25']) {
      const again = await recordPayout(amount, 'W-BAL-1', 'BNA-2026-0001');
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain(`already recorded: payout ${reply.payout.id}`);
    }

    const balance = await client.getBalance();
    const o = balance.overall;
    expect(o).toMatchObject({
      capturedCount: 2,
      capturedCentimes: 151_500 + 201_550,
      feesCentimes: 3_000,
      refundCount: 1,
      refundsCentimes: 50_000,
      payoutCount: 1,
      paidOutCentimes: 100_025,
    });
    expect(o.balanceCentimes).toBe(
      o.capturedCentimes - o.feesCentimes - o.refundsCentimes - o.paidOutCentimes,
    );
    expect(o.balanceCentimes).toBe(200_025);
    expect(o.balance).toBe(2000.25);
    expect(balance.availableCentimes).toBe(200_025);
    // Today's row carries everything; the last 30 days' totals close on the balance.
    const today = balance.days.find((d) => d.date === algiersDay(new Date()))!;
    expect(today).toMatchObject({ paidOutCentimes: 100_025, balanceCentimes: 200_025 });
    expect(balance.totals.balanceCentimes).toBe(200_025);

    // The operator's payout is in the audit log, once, as theirs.
    const audit = await accountsRepository(stack.gateway.runtime.sql).auditPage({
      merchantId: merchant.id,
      limit: 10,
      actionPrefix: 'payout.',
    });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: 'payout.record',
      mode: 'test',
      actor: { kind: 'operator', id: 'amina', label: 'amina' },
      target: 'BNA-2026-0001',
      details: { payoutId: reply.payout.id, amount: 100_025, wallet: 'W-BAL-1' },
    });

    const payouts = await client.listPayouts();
    expect(payouts.payouts).toEqual([
      expect.objectContaining({
        reference: 'BNA-2026-0001',
        amount: 1000.25,
        amountCentimes: 100_025,
      }),
    ]);
    const listed = await dzpay('payout', 'list', merchant.id, '--mode', 'test');
    expect(listed.stdout).toContain('1000.25 DZD  W-BAL-1  BNA-2026-0001');

    // Another merchant and the live mode see none of it.
    expect((await stack.client(merchant.liveKey).getBalance()).overall.balanceCentimes).toBe(0);
  });

  it('downloads the month’s statement as PDF, CSV and XLSX', async () => {
    const client = stack.client(merchant.testKey);
    const month = algiersMonth(new Date());
    const pdf = await client.downloadStatement(month);
    expect(Buffer.from(pdf.subarray(0, 5)).toString()).toBe('%PDF-');

    const csv = Buffer.from(await client.downloadStatement(month, { format: 'csv' })).toString();
    const lines = csv
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe(
      'day;payment_count;captured_dzd;fees_dzd;refund_count;refunds_dzd;net_dzd;payout_count;paid_out_dzd;balance_dzd',
    );
    expect(lines.at(-1)).toBe('total;2;3530,50;30,00;1;500,00;3000,50;1;1000,25;2000,25');

    const xlsx = await client.downloadStatement(month, { format: 'xlsx', language: 'fr' });
    const [days, payouts] = (await workbookOf(xlsx)).worksheets;
    const total = days!.getRow(days!.rowCount);
    expect(total.getCell(1).value).toBe('Total');
    expect(total.getCell(10).value).toBe(2000.25);
    expect(payouts!.getRow(2).getCell(2).value).toBe('BNA-2026-0001');

    const response = await stack.get(`/api/v1/statements/${month}?format=xlsx`, {
      'x-api-key': merchant.testKey,
    });
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="statement-test-${month}.xlsx"`,
    );
  });

  it('refuses bad months, formats, ranges and cursors in the envelope', async () => {
    const headers = { 'x-api-key': merchant.testKey };
    const cases: [string, string][] = [
      ['/api/v1/statements/2026-13', 'month'],
      ['/api/v1/statements/2999-01', 'month'],
      [`/api/v1/statements/${algiersMonth(new Date())}?format=doc`, 'format'],
      ['/api/v1/balance?from=2026-02-30', 'from'],
      ['/api/v1/balance?from=2026-03-10&to=2026-03-01', 'to'],
      ['/api/v1/balance?currency=EUR', 'currency'],
      ['/api/v1/payouts?limit=0', 'limit'],
      ['/api/v1/payouts?cursor=bm9wZQ', 'cursor'],
    ];
    for (const [path, field] of cases) {
      const response = await stack.get(path, headers);
      expect(response.status, path).toBe(400);
      const body = (await response.json()) as {
        errorCode: string;
        details: { failures: { field: string }[] };
      };
      expect(body.errorCode, path).toBe('VALIDATION400_BAD_REQUEST');
      expect(
        body.details.failures.map((f) => f.field),
        path,
      ).toContain(field);
    }
    expect((await stack.get('/api/v1/balance')).status).toBe(401);
  });
});
