import { Mode, Rpc } from '@dzpay/contracts';
import { z } from 'zod';
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  type AccountsRepository,
  type AuditActor,
  type DashboardUsers,
  issueApiKey,
  DEFAULT_GRACE_HOURS,
  effectiveWebhookUrl,
  firstSigningSecret,
  graceHoursProblem,
  rotateSigningSecret,
} from '@dzpay/accounts';
import { addPayoutCommands } from './payout-commands.ts';
import { addReconcileCommand } from './reconcile-command.ts';
import { addUserCommands } from './user-commands.ts';
import {
  apiUrlProblem,
  partnerSecretOwner,
  requestRpc,
  sealSecret,
  signingSecretOwner,
  type NatsConnection,
} from '@dzpay/platform';

export interface CliDeps {
  accounts: () => Promise<AccountsRepository>;
  /** The dashboard's users (`dzpay user …`). */
  dashboardUsers: () => Promise<DashboardUsers>;
  nats: () => Promise<NatsConnection>;
  natsPrefix: string;
  /** Where results go: a line of text, or one JSON document with --json. */
  print: (text: string) => void;
  /** Seals partner secrets; absent when SECRETS_KEY is not set. */
  secretsKey: Buffer | undefined;
  /** Applies every service's migrations; answers the schemas. */
  migrateAll: () => Promise<string[]>;
}

interface PartnerOptions {
  mode: Mode;
  apiUrl: string;
  apiSecret?: string;
  webhooksToPartner?: boolean;
}

/**
 * Where the merchant's webhooks go after `merchant partner`, said plainly: a webhook URL
 * the merchant set earlier keeps them, and the partner would never hear a thing.
 */
function webhooksNote(webhooksTo: string | null, ownUrl: string | null): string {
  if (!ownUrl) return `\nwebhooks go to ${webhooksTo}`;
  return (
    `\nwebhooks still go to ${ownUrl}, the merchant's own webhook URL, not to the partner:` +
    ' re-run with --webhooks-to-partner (or PUT /api/v1/webhooks/settings {"url": null})' +
    ' to send them to {API_URL}/webhooks/platform'
  );
}

/** The operator of a command, as the audit log names them: --operator, else $USER. */
function operatorActor(name: string | undefined): AuditActor {
  const operator = name ?? process.env.USER ?? 'operator';
  return { kind: 'operator', id: operator, label: operator };
}

function uuid(value: string): string {
  if (!z.uuid().safeParse(value).success) throw new InvalidArgumentError('must be a UUID');
  return value;
}

function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

function graceHours(value: string): number {
  const hours = wholeNumber(value);
  const problem = graceHoursProblem(hours);
  if (problem) throw new InvalidArgumentError(problem);
  return hours;
}

const modeOption = () =>
  new Option('--mode <mode>', 'test or live').choices(Mode.options).default('test');

/**
 * `pnpm dzpay …`: the admin command line. It manages merchants and keys in the
 * accounts schema, asks qr-config, over NATS, to create QR codes, and payments to
 * reconcile with the card networks.
 */
export function buildProgram(deps: CliDeps): Command {
  const program = new Command('dzpay')
    .description('dzpay administration: merchants, API keys, QR codes, reconciliation, payouts')
    .option('--json', 'print results as JSON')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();

  const fail = (message: string): never => program.error(message, { exitCode: 1 });
  const out = (value: unknown, text: string) =>
    deps.print(program.opts<{ json?: boolean }>().json ? JSON.stringify(value) : text);

  program
    .command('migrate')
    .description("apply every service's database migrations (ahead of a rollout)")
    .action(async () => {
      const schemas = await deps.migrateAll();
      out({ schemas }, `migrations applied: ${schemas.join(', ')}`);
    });

  const merchant = program.command('merchant').description('manage merchants');
  merchant
    .command('create')
    .argument('<name>', 'display name shown to payers')
    .action(async (name: string) => {
      const created = await (await deps.accounts()).createMerchant(name);
      out(created, `merchant ${created.id} created (${created.name})`);
    });
  merchant.command('list').action(async () => {
    const merchants = await (await deps.accounts()).listMerchants();
    out(
      merchants,
      merchants.map((m) => `${m.id}  ${m.active ? 'active  ' : 'inactive'}  ${m.name}`).join('\n'),
    );
  });
  for (const [name, active] of [
    ['deactivate', false],
    ['activate', true],
  ] as const) {
    merchant
      .command(name)
      .argument('<merchantId>', 'merchant id', uuid)
      .action(async (id: string) => {
        const found = await (await deps.accounts()).setMerchantActive(id, active);
        if (!found) fail(`no merchant ${id}`);
        out({ id, active }, `merchant ${id} ${active ? 'activated' : 'deactivated'}`);
      });
  }

  merchant
    .command('configure')
    .description('set the terms payments use: fee, amount range, wallet, name, receipt limit')
    .argument('<merchantId>', 'merchant id', uuid)
    .option('--fee <dzd>', 'gateway fee per payment, whole DZD', wholeNumber)
    .option('--min-amount <centimes>', 'smallest payment amount, centimes', wholeNumber)
    .option('--max-amount <centimes>', 'largest payment amount, centimes', wholeNumber)
    .option('--wallet <walletId>', 'the wallet payments settle into')
    .option('--name <name>', 'display name shown to payers')
    .option(
      '--receipt-limit <perHour>',
      'receipt emails allowed per hour (default 20)',
      wholeNumber,
    )
    .action(
      async (
        id: string,
        options: {
          fee?: number;
          minAmount?: number;
          maxAmount?: number;
          wallet?: string;
          name?: string;
          receiptLimit?: number;
        },
      ) => {
        const updated = await (
          await deps.accounts()
        )
          .updateMerchantTerms(id, {
            ...(options.fee !== undefined ? { feeDzd: options.fee } : {}),
            ...(options.minAmount !== undefined ? { minAmount: options.minAmount } : {}),
            ...(options.maxAmount !== undefined ? { maxAmount: options.maxAmount } : {}),
            ...(options.wallet !== undefined ? { walletId: options.wallet } : {}),
            ...(options.name !== undefined ? { name: options.name } : {}),
            ...(options.receiptLimit !== undefined
              ? { receiptEmailsPerHour: options.receiptLimit }
              : {}),
          })
          .catch((error: unknown) => fail(`terms refused: ${String(error)}`));
        if (!updated) fail(`no merchant ${id}`);
        out(
          updated,
          `merchant ${id}: fee ${updated!.feeDzd} DZD, amounts ${updated!.minAmount}..${updated!.maxAmount} centimes, wallet ${updated!.walletId ?? 'none'}, ${updated!.receiptEmailsPerHour} receipt emails per hour`,
        );
      },
    );

  merchant
    .command('partner')
    .description("set the partner's server: product lookups (and webhooks) go there")
    .argument('<merchantId>', 'merchant id', uuid)
    .addOption(modeOption())
    .requiredOption('--api-url <url>', "the partner's API_URL")
    .option(
      '--api-secret <secret>',
      'the API secret dzpay sends as Bearer (better: PARTNER_API_SECRET in the environment, out of shell history)',
    )
    .option(
      '--webhooks-to-partner',
      "clear the merchant's own webhook URL, so webhooks go to {API_URL}/webhooks/platform",
    )
    .action(async (id: string, options: PartnerOptions) => {
      if (!deps.secretsKey) fail('set SECRETS_KEY (32 bytes, base64) to store partner secrets');
      const apiSecret = options.apiSecret ?? process.env.PARTNER_API_SECRET;
      if (!apiSecret) fail('give the secret with --api-secret or PARTNER_API_SECRET');
      const urlProblem = apiUrlProblem(options.apiUrl);
      if (urlProblem) fail(`--api-url ${urlProblem}`);
      const sealed = sealSecret(apiSecret!, deps.secretsKey!, partnerSecretOwner(id, options.mode));
      const accounts = await deps.accounts();
      const found = await accounts.setPartnerEndpoint(id, options.mode, options.apiUrl, sealed);
      if (!found) fail(`no merchant ${id}`);
      // The webhook signing secret: given (PARTNER_SIGNING_SECRET) replaces it; otherwise
      // one is made here and shown this once, unless the endpoint has one already (a
      // re-run to change the URL must not cut the partner off; that is a rotation).
      const first = firstSigningSecret(process.env.PARTNER_SIGNING_SECRET);
      const signingSecret = first.secret;
      const sealedSigning = sealSecret(
        signingSecret,
        deps.secretsKey!,
        signingSecretOwner(id, options.mode),
      );
      const created = first.onlyIfNone
        ? await accounts.setFirstSigningSecret(id, options.mode, sealedSigning)
        : await accounts.setSigningSecret(id, options.mode, sealedSigning, null);
      const shown = first.generated && created ? { signingSecret } : {};
      const signingNote =
        'signingSecret' in shown
          ? `\nwebhook signing secret (shown this once): ${signingSecret}`
          : !first.generated
            ? '\nwebhook signing secret set from PARTNER_SIGNING_SECRET'
            : '\nwebhook signing secret unchanged (change it with rotate-signing-secret)';
      if (options.webhooksToPartner) {
        await accounts.setWebhookSettings(id, options.mode, { url: null }, sealedSigning);
      }
      const settings = await accounts.findWebhookSettings(id, options.mode);
      const webhooksTo = settings ? effectiveWebhookUrl(settings) : null;
      out(
        { merchantId: id, mode: options.mode, apiUrl: options.apiUrl, webhooksTo, ...shown },
        `partner endpoint of ${id} (${options.mode}): ${options.apiUrl}${signingNote}` +
          webhooksNote(webhooksTo, settings?.webhookUrl ?? null),
      );
    });

  merchant
    .command('rotate-signing-secret')
    .description('a new webhook signing secret; the old one stays valid for the grace period')
    .argument('<merchantId>', 'merchant id', uuid)
    .addOption(modeOption())
    .option(
      '--grace-hours <hours>',
      'how long the previous secret stays valid',
      graceHours,
      DEFAULT_GRACE_HOURS,
    )
    .action(async (id: string, options: { mode: Mode; graceHours: number }) => {
      if (!deps.secretsKey) fail('set SECRETS_KEY (32 bytes, base64) to store partner secrets');
      const rotation = rotateSigningSecret(new Date(), options.graceHours);
      const signingSecret = rotation.secret;
      // A grace of 0 ends the previous secret now.
      const graceUntil = rotation.previousValidUntil ?? new Date();
      const sealed = sealSecret(
        signingSecret,
        deps.secretsKey!,
        signingSecretOwner(id, options.mode),
      );
      const found = await (
        await deps.accounts()
      ).setSigningSecret(id, options.mode, sealed, graceUntil);
      if (!found)
        fail(`no partner endpoint for ${id} (${options.mode}); set it with merchant partner`);
      out(
        {
          merchantId: id,
          mode: options.mode,
          signingSecret,
          previousValidUntil: graceUntil.toISOString(),
        },
        `new webhook signing secret (shown this once): ${signingSecret}\nthe previous one is valid until ${graceUntil.toISOString()}`,
      );
    });

  const key = program.command('key').description('issue, list and revoke API keys');
  key
    .command('issue')
    .argument('<merchantId>', 'merchant id', uuid)
    .addOption(modeOption())
    .option('--label <label>', 'a note to tell keys apart')
    .option('--operator <name>', 'who issues it, for the audit log (default: $USER)')
    .action(
      async (merchantId: string, options: { mode: Mode; label?: string; operator?: string }) => {
        const accounts = await deps.accounts();
        if (!(await accounts.findMerchant(merchantId))) {
          fail(`no merchant ${merchantId}`);
        }
        const issued = issueApiKey(options.mode);
        const record = await accounts.insertKey({
          merchantId,
          mode: issued.mode,
          hash: issued.hash,
          displayPrefix: issued.displayPrefix,
          label: options.label ?? null,
        });
        await accounts.recordAudit({
          merchantId,
          mode: record.mode,
          actor: operatorActor(options.operator),
          action: 'api_key.issue',
          target: record.displayPrefix,
          details: { keyId: record.id, label: record.label },
        });
        out(
          { ...record, key: issued.key },
          `key ${record.id} issued. It is shown this once; store it now:\n${issued.key}`,
        );
      },
    );
  key
    .command('list')
    .argument('<merchantId>', 'merchant id', uuid)
    .action(async (merchantId: string) => {
      const keys = await (await deps.accounts()).listKeys(merchantId);
      out(
        keys,
        keys
          .map(
            (k) =>
              `${k.id}  ${k.displayPrefix}  ${k.revokedAt ? 'revoked' : 'active '}  ${k.label ?? ''}`,
          )
          .join('\n'),
      );
    });
  key
    .command('revoke')
    .argument('<keyId>', 'key id', uuid)
    .option('--operator <name>', 'who revokes it, for the audit log (default: $USER)')
    .action(async (id: string, options: { operator?: string }) => {
      const accounts = await deps.accounts();
      const revoked = await accounts.revokeKey(id);
      if (!revoked) return fail(`no active key ${id}`);
      await accounts.recordAudit({
        merchantId: revoked.merchantId,
        mode: revoked.mode,
        actor: operatorActor(options.operator),
        action: 'api_key.revoke',
        target: revoked.displayPrefix,
        details: { keyId: id },
      });
      out({ id, revoked: true }, `key ${id} revoked`);
    });

  const qr = program.command('qr').description('QR codes (needs qr-config running)');
  qr.command('create')
    .argument('<merchantId>', 'merchant id', uuid)
    .addOption(modeOption())
    .option('--token <token>', 'the token to use (default: a new random one)')
    .action(async (merchantId: string, options: { mode: Mode; token?: string }) => {
      const code = await requestRpc(await deps.nats(), deps.natsPrefix, Rpc.qrCodeCreate, {
        merchantId,
        mode: options.mode,
        ...(options.token ? { token: options.token } : {}),
      });
      out(code, `QR code ${code.token} created (${code.mode})`);
    });

  addReconcileCommand(program, {
    nats: deps.nats,
    natsPrefix: deps.natsPrefix,
    print: deps.print,
    json: () => program.opts<{ json?: boolean }>().json === true,
    fail: (message, exitCode) => program.error(message, { exitCode }),
  });

  addPayoutCommands(program, {
    accounts: deps.accounts,
    nats: deps.nats,
    natsPrefix: deps.natsPrefix,
    print: deps.print,
    json: () => program.opts<{ json?: boolean }>().json === true,
    fail,
    defaultOperator: () => process.env.USER,
  });

  addUserCommands(program, {
    users: deps.dashboardUsers,
    password: () => process.env.DZPAY_USER_PASSWORD,
    print: deps.print,
  });
  return program;
}
