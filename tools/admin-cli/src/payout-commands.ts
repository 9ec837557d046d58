import {
  dzdTextToCentimes,
  MerchantScope,
  Mode,
  PAYOUTS_PAGE_MAX,
  PayoutRecordRequest,
  Rpc,
  type PayoutRecordReply,
  type PayoutView,
} from '@dzpay/contracts';
import type { AccountsRepository } from '@dzpay/accounts';
import { requestRpc, type NatsConnection } from '@dzpay/platform';
import { InvalidArgumentError, Option, type Command } from 'commander';

/** `--amount`: DZD as an operator types it, read exactly into centimes (no float). */
export function parseDzdAmount(value: string): number {
  const centimes = dzdTextToCentimes(value);
  if (centimes === null) {
    throw new InvalidArgumentError(
      'DZD above zero with at most two decimals: 1500, 1500.50 or 1500,50 (no thousands separators)',
    );
  }
  return centimes;
}

/** Centimes as DZD with two decimals, by integer arithmetic. */
function dzd(centimes: number): string {
  const sign = centimes < 0 ? '-' : '';
  const magnitude = Math.abs(centimes);
  return `${sign}${Math.trunc(magnitude / 100)}.${String(magnitude % 100).padStart(2, '0')} DZD`;
}

/** The answer as an operator reads it. */
export function formatRecorded(reply: PayoutRecordReply): string {
  const p = reply.payout;
  const what = `${dzd(p.amount)} to wallet ${p.wallet} (${p.mode}, bank reference ${p.reference})`;
  return reply.replayed
    ? `already recorded: payout ${p.id} of ${what} on ${p.recordedAt}; nothing new recorded`
    : `payout ${p.id} recorded: ${what}; balance now ${dzd(reply.balance)}`;
}

export function formatPayouts(payouts: readonly PayoutView[]): string {
  if (payouts.length === 0) return 'no payout';
  return payouts
    .map(
      (p) => `${p.recordedAt}  ${dzd(p.amount).padStart(16)}  ${p.wallet}  ${p.reference}  ${p.id}`,
    )
    .join('\n');
}

export interface PayoutCommandsDeps {
  accounts: () => Promise<AccountsRepository>;
  nats: () => Promise<NatsConnection>;
  natsPrefix: string;
  print: (text: string) => void;
  json: () => boolean;
  fail: (message: string) => never;
  /** Who runs the command when --operator is not given ($USER). */
  defaultOperator: () => string | undefined;
}

/**
 * `dzpay payout record|list`: an operator who sent money to a merchant's wallet records
 * it; payments refuses more than the balance and answers a bank reference it already
 * recorded with that payout. Each new payout goes to the audit log (payout.record, actor
 * the operator). docs/balance.md.
 */
export function addPayoutCommands(program: Command, deps: PayoutCommandsDeps): void {
  const payout = program.command('payout').description('payouts to merchants’ wallets');
  const modeOption = () =>
    new Option('--mode <mode>', 'test or live (required: a live payout is real money)')
      .choices(Mode.options)
      .makeOptionMandatory();

  payout
    .command('record')
    .description('record money sent to a merchant’s wallet (never more than the balance)')
    .argument('<merchantId>', 'merchant id')
    .addOption(modeOption())
    .requiredOption('--amount <dzd>', 'DZD sent: 1500, 1500.50 or 1500,50', parseDzdAmount)
    .requiredOption('--wallet <wallet>', 'the wallet it was sent to (the merchant’s)')
    .requiredOption('--reference <bankReference>', 'the bank’s reference of the transfer')
    .option('--operator <name>', 'who records it (default: $USER)')
    .action(
      async (
        merchantId: string,
        options: {
          mode: Mode;
          amount: number;
          wallet: string;
          reference: string;
          operator?: string;
        },
      ) => {
        const operator = options.operator ?? deps.defaultOperator();
        if (!operator) deps.fail('say who records the payout: --operator <name> (or set USER)');
        const parsed = PayoutRecordRequest.safeParse({
          merchantId,
          mode: options.mode,
          amount: options.amount,
          wallet: options.wallet,
          reference: options.reference,
          operator,
        });
        if (!parsed.success) {
          deps.fail(
            parsed.error.issues
              .map((issue) => `${issue.path.join('.') || 'payout'}: ${issue.message}`)
              .join('; '),
          );
        }
        const request = parsed.data;
        const accounts = await deps.accounts();
        const merchant = await accounts.findMerchant(merchantId);
        if (!merchant) deps.fail(`no merchant ${merchantId}`);
        // The wallet typed must be the one configured: a typo would record money as sent
        // to the merchant that went somewhere else.
        if (!merchant.walletId) {
          deps.fail(`merchant ${merchantId} has no wallet (merchant configure --wallet)`);
        }
        if (merchant.walletId !== request.wallet) {
          deps.fail(
            `--wallet ${request.wallet} is not merchant ${merchantId}'s wallet (${merchant.walletId})`,
          );
        }
        const reply = await requestRpc(
          await deps.nats(),
          deps.natsPrefix,
          Rpc.payoutRecord,
          request,
        );
        if (!reply.replayed) {
          await accounts.recordAudit({
            merchantId,
            mode: request.mode,
            actor: { kind: 'operator', id: request.operator, label: request.operator },
            action: 'payout.record',
            target: request.reference,
            details: {
              payoutId: reply.payout.id,
              amount: reply.payout.amount,
              wallet: reply.payout.wallet,
            },
          });
        }
        deps.print(deps.json() ? JSON.stringify(reply) : formatRecorded(reply));
      },
    );

  payout
    .command('list')
    .description('a merchant’s payouts, newest first')
    .argument('<merchantId>', 'merchant id')
    .addOption(modeOption())
    .option('--limit <count>', `how many (1 to ${PAYOUTS_PAGE_MAX})`, (value) => {
      const limit = Number(value);
      if (!/^\d+$/.test(value) || limit < 1 || limit > PAYOUTS_PAGE_MAX) {
        throw new InvalidArgumentError(`a whole number from 1 to ${PAYOUTS_PAGE_MAX}`);
      }
      return limit;
    })
    .action(async (merchantId: string, options: { mode: Mode; limit?: number }) => {
      if (!MerchantScope.safeParse({ merchantId, mode: options.mode }).success) {
        deps.fail(`${merchantId} is not a merchant id (a UUID)`);
      }
      const page = await requestRpc(await deps.nats(), deps.natsPrefix, Rpc.payoutsList, {
        merchantId,
        mode: options.mode,
        limit: options.limit ?? 20,
      });
      deps.print(deps.json() ? JSON.stringify(page) : formatPayouts(page.payouts));
    });
}
