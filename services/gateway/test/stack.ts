import { Rpc, type Mode, type QrConfigGetReply } from '@dzpay/contracts';
import { requestRpc, type BaseEnv, type Runtime } from '@dzpay/platform';
import { startQrConfig } from '@dzpay/qr-config/service';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { accountsRepository } from '../src/adapters/accounts-repository.ts';
import { issueApiKey } from '../src/domain/api-key.ts';
import { startGateway, type Gateway } from '../src/service.ts';

/**
 * The real gateway and qr-config, in this process, over this file's own database,
 * NATS prefix and Redis prefix. Requests go through real HTTP.
 */
export interface Stack {
  infra: IsolatedInfra;
  gateway: Gateway;
  qrConfig: Runtime<BaseEnv> | undefined;
  /** A merchant with an active test key and an active live key. */
  merchant(
    name?: string,
  ): Promise<{ id: string; testKey: string; liveKey: string; keyIds: string[] }>;
  qrCode(merchantId: string, mode?: Mode): Promise<string>;
  readQr(token: string): Promise<QrConfigGetReply>;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  stop(): Promise<void>;
}

export async function startStack(
  label: string,
  env: Record<string, string> = {},
  options: { withQrConfig?: boolean } = {},
): Promise<Stack> {
  const infra = await isolatedInfra(label);
  const qrConfig =
    (options.withQrConfig ?? true)
      ? await startQrConfig(infra.env, { handleSignals: false })
      : undefined;
  const gateway = await startGateway(
    { ...infra.env, HTTP_PORT: '0', HTTP_HOST: '127.0.0.1', SERVICE_TIMEOUT_MS: '2000', ...env },
    { handleSignals: false },
  );
  const accounts = accountsRepository(gateway.runtime.sql);
  const nats = gateway.runtime.nats;

  return {
    infra,
    gateway,
    qrConfig,
    async merchant(name = 'Test merchant') {
      const merchant = await accounts.createMerchant(name);
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
    async stop() {
      await gateway.runtime.stop();
      await qrConfig?.stop();
      await infra.cleanup();
    },
  };
}
