import { randomBytes } from 'node:crypto';
import { entryOf, linkEnv, SANDBOX, type ServiceName } from '@dzpay/stack';
import { localNatsUsers } from '@dzpay/stack/nats-users';
import {
  isolatedInfra,
  startSecuredNatsServer,
  type IsolatedInfra,
  type LocalNatsServer,
} from '@dzpay/testkit';
import {
  freePort,
  runAdminCli,
  spawnService,
  startNode,
  type SpawnedProcess,
} from '@dzpay/testkit/processes';

/**
 * The card network sandbox, payments and the gateway (and, when asked, qr-config and
 * status), each started from its own `main.ts` as a separate process (real environment
 * parsing, real signals), over this stack's own database and Redis prefix, and a NATS
 * server of its own secured as production's is: each service (and the admin CLI) logs
 * in as its own user, limited to its role's subjects (docs/nats-security.md).
 * The gateway and the admin CLI share a SECRETS_KEY made for this stack, so partner
 * endpoints set with the CLI work on the payer's pages.
 */
export interface ProcessStack {
  /** The database and Redis prefix; NATS is `nats`, not the shared server of `infra`. */
  infra: IsolatedInfra;
  /** This stack's secured NATS (NATS_URL of every service). */
  nats: LocalNatsServer;
  /** The gateway's public base URL (also the one payments puts in checkout return URLs). */
  gatewayUrl: string;
  /** The card network sandbox, as payments and the payer's browser reach it. */
  sandboxUrl: string;
  /** A merchant made with the admin CLI: wallet W-1, a 50 DZD fee, and a test key. */
  merchant(name: string): Promise<{ id: string; testKey: string }>;
  /** Sets the merchant's test partner server (`dzpay merchant partner … --mode test`). */
  partnerEndpoint(merchantId: string, apiUrl: string, apiSecret: string): Promise<void>;
  /** A new test QR code of the merchant (`dzpay qr create … --mode test`); needs qr-config. */
  qrCode(merchantId: string): Promise<string>;
  /** POST /set-qr-config with the merchant's test key; throws unless the gateway answers 200. */
  setQrConfig(testKey: string, config: QrConfig): Promise<void>;
  /** What every service wrote so far (the last `maxChars` of each), for failure messages. */
  output(maxChars?: number): string;
  /** SIGTERM to every service, waits for each to exit, then drops the isolated resources. */
  stop(): Promise<void>;
}

export interface ProcessStackOptions {
  /** Extra variables for the card network sandbox (SANDBOX_CONTROL, …). */
  sandbox?: Record<string, string>;
  /** Extra variables for payments (PAYMENT_WINDOW_MS, SWEEP_INTERVAL_MS, …). */
  payments?: Record<string, string>;
  /** Extra variables for the gateway. */
  gateway?: Record<string, string>;
  /** Also start qr-config (QR codes and their configurations), with these extra variables. */
  qrConfig?: boolean | Record<string, string>;
  /** Also start status (the projection behind the status endpoint), with these extra variables. */
  status?: boolean | Record<string, string>;
}

/** The body of POST /set-qr-config: amounts in DZD, expiry as ISO-8601. */
interface QrConfig {
  token: string;
  amounts: number[];
  expiresAt?: string;
  singleUse: boolean;
}

/** `true` → no extra variables, `false`/absent → not started. */
const extraEnv = (option: boolean | Record<string, string> | undefined) =>
  option === undefined || option === false ? undefined : option === true ? {} : option;

// Logs are only kept in memory and shown when a test fails, so they can be generous.
const LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'info';
const STOP_TIMEOUT_MS = 20_000;

export async function startProcessStack(
  label: string,
  options: ProcessStackOptions = {},
): Promise<ProcessStack> {
  const infra = await isolatedInfra(label);
  const users = localNatsUsers(infra.natsPrefix);
  let nats: LocalNatsServer;
  try {
    nats = await startSecuredNatsServer({
      authorization: users.authorization,
      probe: users.admin,
    });
  } catch (error) {
    await infra.cleanup().catch(() => {});
    throw error;
  }
  const children: SpawnedProcess[] = [];
  const env = { ...infra.env, NATS_URL: nats.url, LOG_LEVEL };
  // Seals partner secrets: the CLI seals with it, the gateway opens with it.
  const SECRETS_KEY = randomBytes(32).toString('base64');

  async function stopAll(): Promise<void> {
    // The reverse of the start order: the gateway stops taking payers first.
    for (const service of [...children].reverse()) await service.stop(STOP_TIMEOUT_MS);
  }

  try {
    const sandbox = await spawnSandbox({ LOG_LEVEL, ...options.sandbox });
    children.push(sandbox);

    // Known up front: payments puts it in the card network's return URL.
    const httpPort = await freePort();
    const gatewayUrl = `http://127.0.0.1:${httpPort}`;

    // The services behind the gateway start side by side; each one that started is kept
    // (in a fixed order), so a failure of another still stops it.
    const links = { gatewayUrl, sandboxUrl: sandbox.url, secretsKey: SECRETS_KEY };
    const backing: [ServiceName, Record<string, string> | undefined][] = [
      ['qr-config', extraEnv(options.qrConfig)],
      ['status', extraEnv(options.status)],
      ['payments', { ...options.payments }],
    ];
    const wanted = backing.filter(([, extra]) => extra !== undefined);
    const started = await Promise.allSettled(
      wanted.map(([name, extra]) =>
        spawnService(entryOf(name), {
          ...env,
          ...users.envOf(name),
          ...linkEnv(name, links),
          ...extra,
        }),
      ),
    );
    for (const outcome of started) if (outcome.status === 'fulfilled') children.push(outcome.value);
    const failed = started.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;

    const gateway = await spawnService(entryOf('gateway'), {
      ...env,
      ...users.envOf('gateway'),
      ...linkEnv('gateway', links),
      HTTP_PORT: String(httpPort),
      HTTP_HOST: '127.0.0.1',
      ...options.gateway,
    });
    children.push(gateway);

    const cli = <T>(...args: string[]): Promise<T> =>
      runAdminCli<T>(
        { ...infra.env, NATS_URL: nats.url, ...users.envOf('cli'), SECRETS_KEY },
        args,
      );

    let stopping: Promise<void> | undefined;
    return {
      infra,
      nats,
      gatewayUrl,
      sandboxUrl: sandbox.url,
      async merchant(name) {
        const { id } = await cli<{ id: string }>('merchant', 'create', name);
        await cli('merchant', 'configure', id, '--wallet', 'W-1', '--fee', '50');
        const { key } = await cli<{ key: string }>('key', 'issue', id, '--mode', 'test');
        return { id, testKey: key };
      },
      async partnerEndpoint(merchantId, apiUrl, apiSecret) {
        await cli(
          'merchant',
          'partner',
          merchantId,
          '--mode',
          'test',
          '--api-url',
          apiUrl,
          '--api-secret',
          apiSecret,
        );
      },
      async qrCode(merchantId) {
        if (!options.qrConfig) throw new Error('start the stack with qrConfig to create QR codes');
        const { token } = await cli<{ token: string }>(
          'qr',
          'create',
          merchantId,
          '--mode',
          'test',
        );
        return token;
      },
      async setQrConfig(testKey, config) {
        const response = await fetch(`${gatewayUrl}/set-qr-config`, {
          method: 'POST',
          headers: { 'x-api-key': testKey, 'content-type': 'application/json' },
          body: JSON.stringify(config),
        });
        const body = await response.text();
        if (response.status !== 200) {
          throw new Error(`POST /set-qr-config answered ${response.status}: ${body}`);
        }
      },
      output: (maxChars = 6_000) =>
        children
          .map((c) => `--- ${c.name} (pid ${c.pid}) ---\n${tail(c.output(), maxChars)}`)
          .join('\n'),
      stop: () =>
        (stopping ??= (async () => {
          try {
            await stopAll();
          } finally {
            await nats.stop();
            await infra.cleanup();
          }
        })()),
    };
  } catch (error) {
    await stopAll().catch(() => {});
    await nats.stop().catch(() => {});
    await infra.cleanup().catch(() => {});
    throw error;
  }
}

/** Starts the sandbox on a free port and waits until its /healthz answers 200. */
async function spawnSandbox(
  env: Record<string, string>,
): Promise<SpawnedProcess & { url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const sandbox = await startNode({
    name: SANDBOX,
    entry: entryOf(SANDBOX),
    env: { ...env, SANDBOX_PORT: String(port), SANDBOX_HOST: '127.0.0.1' },
    readyUrl: `${url}/healthz`,
  });
  return Object.assign(sandbox, { url });
}

function tail(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `…${text.slice(-maxChars)}`;
}
