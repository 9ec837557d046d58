import { randomBytes } from 'node:crypto';
import { runAdminCli } from '@dzpay/testkit/processes';
import type { CampaignPartner } from './partner.ts';

/** A merchant of the campaign, as its actors know it. */
export interface CampaignMerchant {
  index: number;
  id: string;
  testKey: string;
  /** Its single-use and multi-use QR codes' tokens. */
  qr: { singleUse: string[]; multiUse: string[] };
}

/** The partners' secrets for merchant `index` (the partner server checks and verifies with them). */
export function partnerSecrets(seed: number) {
  const secret = (kind: string, index: number) =>
    `${kind}-${seed >>> 0}-${index}-${randomBytes(8).toString('hex')}`;
  const api = new Map<number, string>();
  const signing = new Map<number, string>();
  return {
    apiSecret: (index: number) =>
      api.get(index) ?? api.set(index, secret('api', index)).get(index)!,
    signingSecret: (index: number) =>
      signing.get(index) ?? signing.set(index, secret('whsec', index)).get(index)!,
  };
}

/**
 * Merchants made as an operator would, through the admin CLI: terms, a test key, the
 * partner's server (with a known webhook signing secret), and QR codes of both kinds.
 */
export async function createMerchants(deps: {
  count: number;
  cliEnv: Record<string, string>;
  partner: CampaignPartner;
  secrets: ReturnType<typeof partnerSecrets>;
  qrPerKind: number;
}): Promise<CampaignMerchant[]> {
  const cli = <T>(args: string[], extraEnv: Record<string, string> = {}): Promise<T> =>
    runAdminCli<T>({ ...deps.cliEnv, ...extraEnv }, args);
  return Promise.all(
    Array.from({ length: deps.count }, async (_, index) => {
      const { id } = await cli<{ id: string }>([
        'merchant',
        'create',
        `Boutique campagne ${index}`,
      ]);
      await cli(['merchant', 'configure', id, '--wallet', `W-${index}`, '--fee', '50']);
      await cli(['merchant', 'configure', id, '--receipt-limit', '100000']);
      const { key } = await cli<{ key: string }>(['key', 'issue', id, '--mode', 'test']);
      await cli(
        ['merchant', 'partner', id, '--mode', 'test', '--api-url', deps.partner.apiUrl(index)],
        {
          PARTNER_API_SECRET: deps.secrets.apiSecret(index),
          PARTNER_SIGNING_SECRET: deps.secrets.signingSecret(index),
        },
      );
      const qr = async () =>
        (await cli<{ token: string }>(['qr', 'create', id, '--mode', 'test'])).token;
      const singleUse = [];
      const multiUse = [];
      for (let i = 0; i < deps.qrPerKind; i++) {
        singleUse.push(await qr());
        multiUse.push(await qr());
      }
      return { index, id, testKey: key, qr: { singleUse, multiUse } };
    }),
  );
}
