import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { sdkJourney, type Registered } from './support/sdk-journey.ts';

/**
 * The Python SDK (sdks/python) against a real dzpay, with Debian's `/usr/bin/python3`: a
 * merchant script registers a hosted checkout (twice, with one Idempotency-Key), a payer
 * pays it through the card network sandbox, the partner's endpoint (`http.server` with
 * the SDK's `receive_webhook`) verifies the payment.success webhook and refuses a tampered
 * copy, and the merchant script refunds part, reads the payment and walks the list with
 * the cursor iterator. The journey is support/sdk-journey.ts, shared with the PHP SDK;
 * what is Python's own is here.
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PYTHON = '/usr/bin/python3';

/** Fails at once, saying what to install, when Debian's python3 is missing or too old. */
async function requirePython(): Promise<void> {
  let version: string;
  try {
    version = (await run(PYTHON, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])']))
      .stdout;
  } catch (error) {
    throw new Error(
      `${PYTHON} is not installed (${(error as Error).message}): run scripts/setup.sh, or apt-get install python3`,
      { cause: error },
    );
  }
  const [major, minor] = version.trim().split('.').map(Number);
  if (major! < 3 || (major === 3 && minor! < 10)) {
    throw new Error(`${PYTHON} is ${version.trim()}; the Python SDK needs 3.10 or later`);
  }
}

sdkJourney<Registered, { firstPageNextCursor: string | null }>({
  title: 'the Python SDK against a running dzpay',
  label: 'sdk-python',
  merchantName: 'Boutique Python',
  walletId: 'W-PY',
  referencePrefix: 'ORDER-PY',
  interpreter: PYTHON,
  requireInterpreter: requirePython,
  merchantScript: join(ROOT, 'sdks/python/e2e/merchant.py'),
  endpoint: {
    name: 'webhook_server.py',
    // Port 0: the server binds any free port and prints {"port": ...} once it listens.
    args: (port) => [join(ROOT, 'sdks/python/e2e/webhook_server.py'), String(port)],
    printedPort: /^\{"port": (\d+)\}$/m,
  },
  /** The SDK from the repository, not an installed copy. */
  env: { PYTHONPATH: join(ROOT, 'sdks/python/src') },
  checkReplay(first, again) {
    // The same payment, checkoutUrl included; client.last_response says it was replayed.
    expect(first).toMatchObject({ replayed: false });
    expect(again).toEqual({ ...first, replayed: true });
  },
  checkPaging(settled) {
    // Three payments, two a page: the iterator followed a cursor to the second page.
    expect(settled.firstPageNextCursor).toEqual(expect.any(String));
  },
});
