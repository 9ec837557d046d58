import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPartner } from './partner-merchant.ts';
import { CARDS, payByHttp } from './payer.ts';
import { startStack, type Stack } from './stack.ts';

/**
 * The journey every SDK (sdks/<language>) runs against a real dzpay, shared by
 * system/sdk-*.system.test.ts so that each language is held to the same assertions: a
 * merchant script registers a hosted checkout (twice, with one Idempotency-Key), a payer
 * pays it through the card network sandbox, the partner's endpoint (the SDK's webhook
 * receiver) verifies the payment.success webhook and refuses tampered copies, and the
 * merchant script refunds part, reads the payment and walks the list with the cursor
 * iterator. What differs by language (the interpreter, the scripts, how the endpoint
 * says which port it got, what the SDK reports about replays and paging) comes in as
 * a {@link SdkJourney}.
 *
 * Both e2e directories follow one contract: the merchant script takes `register <reference>`
 * or `settle <paymentId> <amount>` and prints JSON, reading DZPAY_API_KEY and
 * DZPAY_BASE_URL; the endpoint reads DZPAY_WEBHOOK_SECRET, appends each verified event as
 * a JSON line to DZPAY_E2E_EVENTS, and answers GET /health.
 */

const run = promisify(execFile);

/** What the merchant script's `register` prints for each of its two calls. */
export interface Registered {
  id: string;
  reference: string;
  amount: number;
  status: string;
  checkoutUrl: string;
}

/** What the merchant script's `settle` prints, besides the language's paging evidence. */
interface Settled {
  refund: {
    id: string;
    status: string;
    refundedAmount: number;
    refund: Record<string, unknown>;
  };
  /** The same refund sent again with its Idempotency-Key: the first answer. */
  refundAgain: Settled['refund'];
  /** What the SDK's last response said of each: replayed or not. */
  refundReplayed: [boolean, boolean];
  payment: { id: string; status: string; refundedAmount: number };
  listed: {
    id: string;
    reference: string;
    status: string;
    refundedAmount: number;
    channel: string;
  }[];
}

/** One line of the endpoint's events file: an event the SDK verified, as it came. */
interface VerifiedEvent {
  id: string;
  type: string;
  paymentId: string | null;
  reference: string | null;
  data: Record<string, unknown>;
  rawBody: string;
  headers: Record<string, string>;
}

export interface SdkJourney<R extends Registered, P> {
  /** The describe block's name. */
  title: string;
  /** The stack's label; also names the work directory. */
  label: string;
  merchantName: string;
  walletId: string;
  /** Each run's order references start with it (a random suffix keeps runs apart). */
  referencePrefix: string;
  /** The interpreter that runs both scripts, as a command or an absolute path. */
  interpreter: string;
  /** Fails at once, saying what to install, when the interpreter cannot run the SDK. */
  requireInterpreter(): Promise<void>;
  merchantScript: string;
  endpoint: {
    /** How failures name it. */
    name: string;
    /** The interpreter's arguments to listen on `port` (0 when it picks and prints its own). */
    args(port: number): string[];
    /**
     * Set when the endpoint binds port 0 and prints the port it got (the first group);
     * unset, a free port is chosen here and given to it (`php -S` cannot say which port
     * it took).
     */
    printedPort?: RegExp;
  };
  /** More variables for both scripts (PYTHONPATH, say). */
  env?: Record<string, string>;
  /** The language's own evidence that the second `register` replayed the first. */
  checkReplay(first: R, again: R): void;
  /** The language's own evidence that the list iterator followed a cursor. */
  checkPaging(settled: Settled & P): void;
}

/**
 * Starts the endpoint and resolves to its API_URL once GET /health answers; rejects, with
 * what it printed, if it exits or is not up within 5 s. `started` gets the child as soon
 * as it exists, so that afterAll can stop it even when it never came up.
 */
async function startEndpoint(
  interpreter: string,
  endpoint: SdkJourney<Registered, unknown>['endpoint'],
  env: NodeJS.ProcessEnv,
  started: (child: ChildProcess) => void,
): Promise<string> {
  const chosen = endpoint.printedPort ? 0 : await freePort();
  const child = spawn(interpreter, endpoint.args(chosen), {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`${endpoint.name} exited (${code}): ${output}`))),
  );
  exited.catch(() => undefined);
  const deadline = Date.now() + 5_000;
  let port = endpoint.printedPort ? undefined : chosen;
  for (;;) {
    if (port === undefined) {
      const printed = endpoint.printedPort!.exec(output);
      if (printed) port = Number(printed[1]);
    }
    if (port !== undefined) {
      const up = await Promise.race([
        fetch(`http://127.0.0.1:${port}/health`).then(
          (response) => response.ok,
          () => false,
        ),
        exited,
      ]);
      if (up) return `http://127.0.0.1:${port}/dzpay`;
    }
    if (Date.now() > deadline) throw new Error(`${endpoint.name} did not start: ${output}`);
    // Racing `exited` here too: an endpoint that dies before printing its port fails now.
    await Promise.race([new Promise((resolve) => setTimeout(resolve, 100)), exited]);
  }
}

async function stopEndpoint(child: ChildProcess | undefined): Promise<void> {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

async function readVerifiedEvents(eventsFile: string): Promise<VerifiedEvent[]> {
  // No file yet: the endpoint has verified nothing.
  const text = await readFile(eventsFile, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as VerifiedEvent);
}

/**
 * Registers the journey's describe block, with its own stack and endpoint set up in
 * beforeAll and torn down in afterAll. Call it at the top level of a test file.
 */
export function sdkJourney<R extends Registered, P>(sdk: SdkJourney<R, P>): void {
  const secretsKey = randomBytes(32).toString('base64');
  const signingSecret = `whsec_${randomBytes(32).toString('base64')}`;
  let stack: Stack;
  let shop: Awaited<ReturnType<Stack['merchant']>>;
  let endpoint: ChildProcess | undefined;
  let endpointUrl: string;
  let workDir: string | undefined;
  let eventsFile: string;

  /** Runs the merchant script with the shop's test key; its stdout, parsed. */
  async function merchant<T>(...args: string[]): Promise<T> {
    try {
      const { stdout } = await run(sdk.interpreter, [sdk.merchantScript, ...args], {
        env: {
          ...process.env,
          ...sdk.env,
          DZPAY_API_KEY: shop.testKey,
          DZPAY_BASE_URL: stack.gateway.url,
        },
        timeout: 15_000,
      });
      return JSON.parse(stdout) as T;
    } catch (error) {
      // What the script printed is the only clue to an SDK failure: keep it in the message.
      const failed = error as Error & { stdout?: string; stderr?: string };
      throw new Error(
        `${basename(sdk.interpreter)} ${basename(sdk.merchantScript)} ${args.join(' ')} failed: ${failed.message}\n${failed.stdout ?? ''}${failed.stderr ?? ''}`,
        { cause: error },
      );
    }
  }

  const verifiedEvents = () => readVerifiedEvents(eventsFile);

  describe(sdk.title, () => {
    const reference = `${sdk.referencePrefix}-${randomBytes(4).toString('hex')}`;
    let payment: R;

    beforeAll(async () => {
      await sdk.requireInterpreter();
      workDir = await mkdtemp(join(tmpdir(), `dzpay-${sdk.label}-`));
      eventsFile = join(workDir, 'events.jsonl');
      stack = await startStack(
        sdk.label,
        { SECRETS_KEY: secretsKey },
        { withPayments: true, withStatus: true, withWebhooks: { SECRETS_KEY: secretsKey } },
      );
      shop = await stack.merchant(sdk.merchantName, { walletId: sdk.walletId });
      endpointUrl = await startEndpoint(
        sdk.interpreter,
        sdk.endpoint,
        {
          ...process.env,
          ...sdk.env,
          DZPAY_WEBHOOK_SECRET: signingSecret,
          DZPAY_E2E_EVENTS: eventsFile,
        },
        (child) => (endpoint = child),
      );
      // The partner endpoint is API_URL; dzpay posts its webhooks to {API_URL}/webhooks/platform.
      await connectPartner(stack, shop.id, { url: endpointUrl, signingSecret }, secretsKey);
    });

    afterAll(async () => {
      await stopEndpoint(endpoint);
      await stack?.stop();
      if (workDir) await rm(workDir, { recursive: true, force: true });
    });

    it('registers a hosted checkout; the same Idempotency-Key answers the same payment', async () => {
      const { first, again } = await merchant<{ first: R; again: R }>('register', reference);
      expect(first).toMatchObject({ reference, amount: 150_000, status: 'created' });
      expect(first.checkoutUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
      sdk.checkReplay(first, again);
      payment = first;
    });

    it('is paid through the sandbox; the SDK verifies the payment.success webhook', async () => {
      const { finalUrl } = await payByHttp(payment.checkoutUrl, CARDS.approved);
      const landed = new URL(finalUrl!);
      expect(landed.origin + landed.pathname).toBe('https://shop.example/merci');
      expect(landed.searchParams.get('reference')).toBe(reference);

      await expect
        .poll(async () => (await verifiedEvents()).map((event) => event.type), {
          timeout: 15_000,
        })
        .toEqual(['payment.success']);
      const [event] = await verifiedEvents();
      expect(event).toMatchObject({ paymentId: payment.id, reference });
      expect(event!.data).toMatchObject({
        channel: 'CHECKOUT',
        amount: 1500,
        currency: 'DZD',
        status: 'success',
        metadata: { cart: 7 },
        failureReason: null,
      });
      expect(event!.headers['x-event-id']).toBe(event!.id);
    });

    it('the same SDK code refuses a tampered copy, and takes the copy as sent', async () => {
      const [event] = await verifiedEvents();
      const headers = Object.fromEntries(
        Object.entries(event!.headers).filter(
          ([name]) =>
            name.startsWith('x-') ||
            name.startsWith('webhook-') ||
            name === 'content-type' ||
            name === 'authorization',
        ),
      );
      const send = (body: string) =>
        fetch(`${endpointUrl}/webhooks/platform`, { method: 'POST', headers, body });

      const tamperedBody = event!.rawBody.replace('"amount":1500', '"amount":15');
      expect(tamperedBody).not.toBe(event!.rawBody);
      const tampered = await send(tamperedBody);
      expect(tampered.status).toBe(401);
      expect(await tampered.json()).toMatchObject({ error: 'UNAUTHORIZED' });
      // The same bytes re-serialised (what a framework's parsed body would give) fail too.
      const reserialised = await send(JSON.stringify(JSON.parse(event!.rawBody), null, 1));
      expect(reserialised.status).toBe(401);
      expect(await verifiedEvents()).toHaveLength(1);

      // The copy exactly as dzpay sent it verifies: the refusals were the tampering's.
      const copy = await send(event!.rawBody);
      expect(copy.status).toBe(200);
      expect(await copy.json()).toEqual({ success: true });
      expect((await verifiedEvents()).map((e) => e.id)).toEqual([event!.id, event!.id]);
    });

    it('refunds part, reads the payment and lists it with the cursor iterator', async () => {
      // Two more orders, not paid, so the list has more than one page of two.
      for (const suffix of ['B', 'C']) {
        const other = await stack.post(
          '/api/v1/payments',
          { amount: 10_000, currency: 'DZD', reference: `${reference}-${suffix}` },
          { 'x-api-key': shop.testKey },
        );
        expect(other.status).toBe(201);
      }

      const settled = await merchant<Settled & P>('settle', payment.id, '50000');

      expect(settled.refund).toMatchObject({
        id: payment.id,
        status: 'success',
        refundedAmount: 50_000,
      });
      expect(settled.refund.refund).toMatchObject({ amount: 50_000, status: 'succeeded' });
      // Sent again with its key: the same refund, the SDK saying it was replayed.
      expect(settled.refundAgain).toEqual(settled.refund);
      expect(settled.refundReplayed).toEqual([false, true]);
      expect(settled.payment).toMatchObject({
        id: payment.id,
        status: 'success',
        refundedAmount: 50_000,
      });

      sdk.checkPaging(settled);
      expect(settled.listed.map((item) => item.reference).sort()).toEqual([
        reference,
        `${reference}-B`,
        `${reference}-C`,
      ]);
      expect(settled.listed.find((item) => item.id === payment.id)).toMatchObject({
        status: 'success',
        refundedAmount: 50_000,
        channel: 'CHECKOUT',
      });
    });
  });
}
