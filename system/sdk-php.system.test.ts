import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { sdkJourney, type Registered } from './support/sdk-journey.ts';

/**
 * The PHP SDK (sdks/php) against a real dzpay, with Debian's `php`: a merchant script
 * registers a hosted checkout (twice, with one Idempotency-Key), a payer pays it through
 * the card network sandbox, the partner's endpoint (`php -S` on the SDK's receiver)
 * verifies the payment.success webhook and refuses a tampered copy, and the merchant
 * script refunds part, reads the payment and walks the list with the cursor iterator.
 * The journey is support/sdk-journey.ts, shared with the Python SDK; what is PHP's own
 * is here.
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Debian's php-cli (with php-curl), as scripts/setup.sh installs it. */
const PHP = 'php';

/** Fails at once, saying what to install, when Debian's php or its curl extension is missing. */
async function requirePhp(): Promise<void> {
  let modules: string;
  try {
    modules = (await run(PHP, ['-m'])).stdout;
  } catch (error) {
    throw new Error(
      `php is not installed (${(error as Error).message}): run scripts/setup.sh, or apt-get install php-cli php-curl`,
      { cause: error },
    );
  }
  if (!/^curl$/m.test(modules)) {
    throw new Error('php has no curl extension: run scripts/setup.sh, or apt-get install php-curl');
  }
}

/** merchant.php adds each response's Idempotent-Replayed header, off the SDK's lastResponse. */
interface PhpRegistered extends Registered {
  replayed: string | null;
}

sdkJourney<PhpRegistered, { listRequests: string[] }>({
  title: 'the PHP SDK against a running dzpay',
  label: 'sdk-php',
  merchantName: 'Boutique PHP',
  walletId: 'W-PHP',
  referencePrefix: 'ORDER-PHP',
  interpreter: PHP,
  requireInterpreter: requirePhp,
  merchantScript: join(ROOT, 'sdks/php/e2e/merchant.php'),
  endpoint: {
    name: 'php -S',
    args: (port) => ['-S', `127.0.0.1:${port}`, join(ROOT, 'sdks/php/e2e/webhook.php')],
  },
  checkReplay(first, again) {
    expect(first).toMatchObject({ replayed: null });
    expect(again).toMatchObject({ id: first.id, checkoutUrl: first.checkoutUrl, replayed: 'true' });
  },
  checkPaging(settled) {
    // The script records the list requests the iterator made: the second carries a cursor.
    expect(settled.listRequests).toHaveLength(2);
    expect(settled.listRequests[1]).toContain('cursor=');
  },
});
