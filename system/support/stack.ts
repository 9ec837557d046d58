import { randomBytes } from 'node:crypto';
import { dzpayClient, type DzpayClient } from '@dzpay/client';
import { Rpc, type Mode, type QrConfigGetReply } from '@dzpay/contracts';
import { requestRpc, type BaseEnv, type Runtime } from '@dzpay/platform';
import { startSandbox, type Sandbox } from '@dzpay/cardnet-sandbox/service';
import { startPayments } from '@dzpay/payments/service';
import { startQrConfig } from '@dzpay/qr-config/service';
import { startReceipts } from '@dzpay/receipts/service';
import { startStatus } from '@dzpay/status/service';
import { startWebhookDispatcher } from '@dzpay/webhook-dispatcher/service';
import { linkEnv, type StackLinks } from '@dzpay/stack';
import {
  freePort,
  isolatedInfra,
  startMailCatcher,
  type IsolatedInfra,
  type MailCatcher,
} from '@dzpay/testkit';
import { loopbackOnlyConnect, type Dial } from '@dzpay/testkit/loopback-connect';
import { accountsRepository, type MerchantTermsPatch, issueApiKey } from '@dzpay/accounts';
import { startGateway, type Gateway } from '@dzpay/gateway/service';
import { startDashboard, type Dashboard } from '@dzpay/dashboard/service';

/**
 * The real gateway and qr-config (and, when asked, payments and the card network
 * sandbox), in this process, over this file's own database, NATS prefix and Redis
 * prefix. Requests go through real HTTP.
 */
export interface Stack {
  infra: IsolatedInfra;
  gateway: Gateway;
  /** The merchants' dashboard, when asked for: its pages are under `${dashboard.url}/dashboard`. */
  dashboard: Dashboard | undefined;
  /**
   * The mail server the dashboard sends invitations and reset links to: a catcher of the
   * stack's own, unless the test's variables name one (SMTP_HOST).
   */
  dashboardMail: MailCatcher | undefined;
  qrConfig: Runtime<BaseEnv> | undefined;
  payments: Runtime<BaseEnv> | undefined;
  status: Runtime<BaseEnv> | undefined;
  webhooks: Runtime<BaseEnv> | undefined;
  receipts: Runtime<BaseEnv> | undefined;
  /** The card network sandbox test keys pay against. */
  sandbox: Sandbox | undefined;
  /** A merchant with an active test key and an active live key, and a wallet by default. */
  merchant(
    name?: string,
    terms?: MerchantTermsPatch,
  ): Promise<{ id: string; testKey: string; liveKey: string; keyIds: string[] }>;
  qrCode(merchantId: string, mode?: Mode): Promise<string>;
  readQr(token: string): Promise<QrConfigGetReply>;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  /** The typed merchant client (libs/client) with this key, against this gateway. */
  client(apiKey: string): DzpayClient;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  stop(): Promise<void>;
}

export async function startStack(
  label: string,
  env: Record<string, string> = {},
  options: {
    withQrConfig?: boolean;
    /** Start the sandbox and payments too (in this process), with these variables. */
    withPayments?: boolean | Record<string, string>;
    /** Start the status service (the projection behind the status endpoint). */
    withStatus?: boolean;
    /** Start the webhook dispatcher, with these variables (SECRETS_KEY at least). */
    withWebhooks?: Record<string, string>;
    /** Start the receipts service, with these variables (its SMTP settings at least). */
    withReceipts?: Record<string, string>;
    /** Start the merchants' dashboard too (with the same variables as the gateway). */
    withDashboard?: boolean;
    /** Where partner requests of payments and the dispatcher tried to go (loopback only is dialed). */
    partnerDials?: Dial[];
    /** Every service on this database instead of the test's own (a failover pair's URL). */
    databaseUrl?: string;
  } = {},
): Promise<Stack> {
  const isolated = await isolatedInfra(label);
  const infra = options.databaseUrl
    ? { ...isolated, env: { ...isolated.env, DATABASE_URL: options.databaseUrl } }
    : isolated;
  // Partner requests of this stack's payments and dispatcher reach loopback only, whatever
  // a test points them at (the guard is off here: test partners listen on 127.0.0.1).
  const partnerConnect = loopbackOnlyConnect(options.partnerDials ?? []);
  const qrConfig =
    (options.withQrConfig ?? true)
      ? await startQrConfig(infra.env, { handleSignals: false })
      : undefined;
  // The gateway's port is known up front: payments puts it in the card network's return URL.
  const httpPort = await freePort();
  const publicBaseUrl = `http://127.0.0.1:${httpPort}`;
  const sandbox = options.withPayments
    ? await startSandbox(
        {
          SANDBOX_PORT: '0',
          SANDBOX_HOST: '127.0.0.1',
          LOG_LEVEL: infra.env.LOG_LEVEL!,
          ...(typeof options.withPayments === 'object' ? options.withPayments : {}),
        },
        { handleSignals: false },
      )
    : undefined;
  const links: StackLinks = {
    gatewayUrl: publicBaseUrl,
    // Without a sandbox no payments starts, the one service that reads it.
    sandboxUrl: sandbox?.url ?? '',
    // The test's key when it gives one, so what it seals the services open.
    secretsKey: env.SECRETS_KEY ?? randomBytes(32).toString('base64'),
  };
  const payments = sandbox
    ? await startPayments(
        {
          ...infra.env,
          // Test partners listen on 127.0.0.1: linkEnv allows private targets (a test may
          // still turn that off).
          ...linkEnv('payments', links),
          ...(typeof options.withPayments === 'object' ? options.withPayments : {}),
        },
        { handleSignals: false, partnerConnect },
      )
    : undefined;
  const status = options.withStatus
    ? await startStatus(infra.env, { handleSignals: false })
    : undefined;
  const webhooks = options.withWebhooks
    ? await startWebhookDispatcher(
        { ...infra.env, ...linkEnv('webhook-dispatcher', links), ...options.withWebhooks },
        { handleSignals: false, partnerConnect },
      )
    : undefined;
  const receipts = options.withReceipts
    ? await startReceipts({ ...infra.env, ...options.withReceipts }, { handleSignals: false })
    : undefined;
  const gateway = await startGateway(
    {
      ...infra.env,
      HTTP_PORT: String(httpPort),
      HTTP_HOST: '127.0.0.1',
      ...linkEnv('gateway', links),
      SERVICE_TIMEOUT_MS: '2000',
      ...env,
    },
    { handleSignals: false },
  );
  // The dashboard gets the gateway's variables: the same public URL (its payer and
  // invitation links), secrets key, timeouts and test settings.
  const dashboardMail =
    options.withDashboard && env.SMTP_HOST === undefined ? await startMailCatcher() : undefined;
  const dashboard = options.withDashboard
    ? await startDashboard(
        {
          ...infra.env,
          HTTP_PORT: '0',
          HTTP_HOST: '127.0.0.1',
          ...linkEnv('dashboard', links),
          SERVICE_TIMEOUT_MS: '2000',
          ...dashboardMail?.env,
          ...env,
        },
        { handleSignals: false },
      )
    : undefined;
  const accounts = accountsRepository(gateway.runtime.sql);
  const nats = gateway.runtime.nats;

  return {
    infra,
    gateway,
    dashboard,
    dashboardMail,
    qrConfig,
    payments,
    status,
    webhooks,
    receipts,
    sandbox,
    async merchant(name = 'Test merchant', terms = { walletId: 'wallet-test' }) {
      const created = await accounts.createMerchant(name);
      const merchant = (await accounts.updateMerchantTerms(created.id, terms)) ?? created;
      const keys = await Promise.all(
        (['test', 'live'] as const).map(async (mode) => {
          const issued = issueApiKey(mode);
          const record = await accounts.insertKey({
            merchantId: merchant.id,
            mode,
            hash: issued.hash,
            displayPrefix: issued.displayPrefix,
            label: null,
          });
          return { key: issued.key, id: record.id };
        }),
      );
      return {
        id: merchant.id,
        testKey: keys[0]!.key,
        liveKey: keys[1]!.key,
        keyIds: keys.map((k) => k.id),
      };
    },
    async qrCode(merchantId, mode = 'test') {
      const code = await requestRpc(nats, infra.natsPrefix, Rpc.qrCodeCreate, { merchantId, mode });
      return code.token;
    },
    readQr: (token) => requestRpc(nats, infra.natsPrefix, Rpc.qrConfigGet, { token }),
    post: (path, body, headers = {}) =>
      fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    get: (path, headers = {}) => fetch(`${gateway.url}${path}`, { headers, redirect: 'manual' }),
    client: (apiKey) => dzpayClient({ baseUrl: gateway.url, apiKey }),
    async stop() {
      await dashboard?.runtime.stop();
      await dashboardMail?.close();
      await gateway.runtime.stop();
      await payments?.stop();
      await status?.stop();
      await webhooks?.stop();
      await receipts?.stop();
      await sandbox?.close();
      await qrConfig?.stop();
      await infra.cleanup();
    },
  };
}
