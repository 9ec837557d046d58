import { settings } from './settings.ts';
import type { BenchStack } from './stack.ts';

/** The bench's merchant: its test key and the QR codes set-qr-config rotates over. */
export interface BenchMerchant {
  merchantId: string;
  key: string;
  tokens: string[];
}

/** A merchant, a test key and the QR codes, made the way an operator would: the CLI. */
export async function seedMerchant(stack: Pick<BenchStack, 'cli'>): Promise<BenchMerchant> {
  const { cli } = stack;
  const merchant = await cli<{ id: string }>('merchant', 'create', 'Bench merchant');
  await cli('merchant', 'configure', merchant.id, '--wallet', 'bench-wallet');
  const { key } = await cli<{ key: string }>('key', 'issue', merchant.id, '--mode', 'test');
  const tokens: string[] = [];
  // A few at a time: each call is a whole node process, and there are two cores.
  while (tokens.length < settings.qrCodes) {
    const batch = Math.min(4, settings.qrCodes - tokens.length);
    const codes = await Promise.all(
      Array.from({ length: batch }, () =>
        cli<{ token: string }>('qr', 'create', merchant.id, '--mode', 'test'),
      ),
    );
    tokens.push(...codes.map((code) => code.token));
  }
  console.log(`seeded merchant ${merchant.id} with ${tokens.length} QR codes`);
  return { merchantId: merchant.id, key, tokens };
}
