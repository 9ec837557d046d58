import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort, isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARDS, payByHttp } from './support/payer.ts';
import { launchPnpmStart, type PnpmStart } from './support/pnpm-start.ts';
import { blockWith, readmeBlocks, substitute } from './support/readme-blocks.ts';
import { startShellServer, type ShellServer } from './support/shell-server.ts';

// A new PHP merchant and a new Python partner, each doing only what their SDK's README
// says, against `pnpm start`. The README's own blocks are what runs: files are written
// and commands pasted as the reader copies them, with only the ports (a test cannot take
// 8080) and the secrets the README tells the reader to paste replaced. A README step
// that changes, disappears or no longer works fails here.

const REPO = fileURLToPath(new URL('..', import.meta.url));
const PHP_README = new URL('../sdks/php/README.md', import.meta.url);
const PYTHON_README = new URL('../sdks/python/README.md', import.meta.url);
const shell = promisify(execFile);
/** What the reader's terminal runs a pasted line with; its stdout. */
const paste = async (command: string, cwd: string, env: NodeJS.ProcessEnv = process.env) =>
  (await shell('bash', ['-c', command], { cwd, env, timeout: 60_000 })).stdout;

/** A dzpay of one's own: `pnpm start` on a fresh database, stopped after the describe. */
function ownDzpay(label: string) {
  const own = {} as {
    infra: IsolatedInfra;
    dir: string;
    start: PnpmStart;
    demo: { merchantId: string; key: string };
    /** Where the README says dzpay is (http://localhost:8080), on this run's port. */
    gateway: string;
  };
  beforeAll(async () => {
    own.infra = await isolatedInfra(label);
    own.dir = await mkdtemp(join(tmpdir(), `dzpay-${label}-`));
    own.start = await launchPnpmStart(own.infra, own.dir);
    await own.start.ready();
    own.demo = await own.start.demo();
    own.gateway = `http://localhost:${own.start.ports.http}`;
  }, 90_000);
  afterAll(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
    if (own.start) {
      own.start.interrupt();
      await Promise.race([own.start.exited, new Promise((resolve) => setTimeout(resolve, 20_000))]);
      own.start.kill();
    }
    await own.infra?.cleanup();
    if (own.dir) await rm(own.dir, { recursive: true, force: true });
  }, 60_000);
  return own;
}

const servers: ShellServer[] = [];

async function serve(command: string, cwd: string, port: number, env = process.env) {
  const server = await startShellServer(command, { cwd, env, port });
  servers.push(server);
  return server;
}

async function eventually<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within 30 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** What `composer require dzpay/dzpay-php` leaves behind in `dir`: an autoloader for the SDK. */
async function composerProject(dir: string): Promise<void> {
  await mkdir(join(dir, 'vendor'), { recursive: true });
  await writeFile(
    join(dir, 'vendor', 'autoload.php'),
    `<?php require ${JSON.stringify(join(REPO, 'sdks/php/autoload.php'))};\n`,
  );
}

/** The README's admin CLI line, on this run's dzpay and with the partner on `port`. */
const connectCommand = (
  dzpay: ReturnType<typeof ownDzpay>,
  cli: string,
  readmePort: string,
  port: number,
) =>
  substitute(cli, [
    ['.dzpay-nats/', `${dzpay.start.natsDir}/`],
    ['./.dzpay-demo.json', dzpay.start.demoFile],
    [readmePort, String(port)],
  ]);

/** A webhook delivery as GET /api/v1/payments/{id}/webhooks lists it. */
interface Delivery {
  eventType: string;
  state: string;
}

/**
 * A payer opens BOOK-42's page (the partner's title on it), pays it through the sandbox;
 * once `sold()` says the partner recorded the sale, a second payer is told it is sold.
 */
async function sellBook42(
  dzpay: ReturnType<typeof ownDzpay>,
  sold: () => Promise<boolean>,
  what: string,
): Promise<void> {
  const page = `${dzpay.gateway}/pay/${dzpay.demo.merchantId}/BOOK-42?mode=test`;
  const shown = await fetch(page);
  expect(shown.status).toBe(200);
  expect(await shown.text()).toContain('Nedjma');
  const started = await fetch(page, { method: 'POST', redirect: 'manual' });
  expect(started.status).toBe(303);
  const checkoutUrl = new URL(started.headers.get('location')!, dzpay.gateway).href.split('?')[0]!;
  await payByHttp(checkoutUrl, CARDS.approved);
  await eventually(async () => ((await sold()) ? true : undefined), what);
  const second = await fetch(page, { method: 'POST', redirect: 'manual' });
  expect(second.status).toBe(409);
}

/** A payment.success for `reference` with a fresh timestamp and a signature that is not one. */
const postForgedSuccess = (url: string, reference: string) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-timestamp': String(Math.floor(Date.now() / 1000)),
      'x-signature': '0'.repeat(64),
    },
    body: JSON.stringify({ type: 'payment.success', data: { reference } }),
  });

describe('a new PHP merchant, then its partner, following sdks/php/README.md on one pnpm start', () => {
  const dzpay = ownDzpay('php-quickstart');
  /** The signing secret the merchant section's webhook-setup.php printed. */
  let merchantSecret = '';
  it('registers a checkout, is paid through the sandbox and verifies the webhook', async () => {
    const blocks = await readmeBlocks(PHP_README);
    const shop = join(dzpay.dir, 'shop');
    await composerProject(shop);
    const [shopPort, hookPort] = [await freePort(), await freePort()];
    const local = (code: string, ...more: [string, string][]) =>
      substitute(code, [['http://localhost:8080', dzpay.gateway], ...more]);

    // 1. Make a payment and send the payer to it.
    const payPhp = local(blockWith(blocks, 'php', '<?php // pay.php'));
    await writeFile(join(shop, 'pay.php'), payPhp);
    const servePay = substitute(blockWith(blocks, 'sh', 'php -S localhost:8000 pay.php'), [
      ['pk_test_…', dzpay.demo.key],
      ['8000', String(shopPort)],
    ]);
    await serve(servePay, shop, shopPort);
    const payer = async (order: string) => {
      const button = await fetch(`http://localhost:${shopPort}/`, { redirect: 'manual' });
      expect(button.status).toBe(303);
      const checkoutUrl = button.headers.get('location')!;
      expect(checkoutUrl.startsWith(`${dzpay.gateway}/checkout/`), checkoutUrl).toBe(true);
      const paid = await payByHttp(checkoutUrl, CARDS.approved);
      expect(paid.finalUrl).toBe(`https://shop.example/merci?reference=${order}`);
    };
    await payer('ORDER-1042');

    // 2. The webhook: settings once (the signing secret printed), then the endpoint.
    const setup = local(blockWith(blocks, 'php', '<?php // webhook-setup.php'), [
      'http://localhost:8001',
      `http://localhost:${hookPort}`,
    ]);
    await writeFile(join(shop, 'webhook-setup.php'), setup);
    const runSetup = substitute(blockWith(blocks, 'sh', 'php webhook-setup.php'), [
      ['pk_test_…', dzpay.demo.key],
    ]);
    const signingSecret = (await paste(runSetup, shop)).trim();
    expect(signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    merchantSecret = signingSecret;
    await writeFile(join(shop, 'webhook.php'), blockWith(blocks, 'php', '<?php // webhook.php'));
    const serveHook = substitute(blockWith(blocks, 'sh', 'php -S localhost:8001 webhook.php'), [
      ['whsec_…', signingSecret],
      ['8001', String(hookPort)],
    ]);
    await serve(serveHook, shop, hookPort);

    // "Pay another order (a new $order in pay.php): paid.log gains its line."
    await writeFile(join(shop, 'pay.php'), substitute(payPhp, [['ORDER-1042', 'ORDER-1043']]));
    await payer('ORDER-1043');
    const paidLog = join(shop, 'paid.log');
    const paymentId = await eventually(async () => {
      const log = await readFile(paidLog, 'utf8').catch(() => '');
      return /^ORDER-1043 (\S+)$/m.exec(log)?.[1];
    }, 'paid.log names ORDER-1043');
    // A copy with a forged signature is refused and marks nothing.
    const forged = await postForgedSuccess(
      `http://localhost:${hookPort}/webhooks/platform`,
      'ORDER-1044',
    );
    expect(forged.status).toBe(401);
    expect(await readFile(paidLog, 'utf8')).not.toContain('ORDER-1044');

    // 3. Afterwards: the README's read, with the client of step 1.
    const client = payPhp.slice(0, payPhp.indexOf(';', payPhp.indexOf('$dzpay = new')) + 1);
    const read = blockWith(blocks, 'php', '$dzpay->getPayment(').split('\n')[0]!.split(';')[0]!;
    await writeFile(
      join(shop, 'read.php'),
      `${client}\necho json_encode(${read.replace("$payment['id']", `'${paymentId}'`)});\n`,
    );
    const payment = JSON.parse(
      await paste(`DZPAY_API_KEY=${dzpay.demo.key} php read.php`, shop),
    ) as Record<string, unknown>;
    expect(payment).toMatchObject({
      id: paymentId,
      reference: 'ORDER-1043',
      amount: 250000,
      status: 'success',
    });
  }, 120_000);

  it('then, on the same demo merchant, connects partner.php, sells BOOK-42 and verifies the webhook', async () => {
    const blocks = await readmeBlocks(PHP_README);
    const shop = join(dzpay.dir, 'bookshop');
    await composerProject(shop);
    const port = await freePort();
    // The merchant section set a webhook URL and made the signing secret: the CLI says it
    // keeps that secret and that webhooks now go to the partner.
    const cli = blockWith(blocks, 'sh', 'pnpm dzpay merchant partner');
    const connected = await paste(connectCommand(dzpay, cli, '8002', port), REPO);
    expect(connected).toContain('webhook signing secret unchanged');
    expect(connected).toContain(`webhooks go to http://localhost:${port}/dzpay/webhooks/platform`);
    const signingSecret = merchantSecret;
    expect(signingSecret).toMatch(/^whsec_/);
    // The catalogue the README gives, and partner.php as written there.
    const books = join(shop, 'books.json');
    await writeFile(books, '{"BOOK-42": {"title": "Nedjma", "price": 1500.5, "sold": false}}');
    await writeFile(join(shop, 'partner.php'), blockWith(blocks, 'php', '<?php // partner.php'));
    const run = substitute(blockWith(blocks, 'sh', 'php -S localhost:8002 partner.php'), [
      ['whsec_…', signingSecret],
      ['8002', String(port)],
    ]);
    await serve(run, shop, port);
    // "books.json says sold: true; a second payer is told the book is sold."
    const sold = async () =>
      (JSON.parse(await readFile(books, 'utf8')) as Record<string, { sold: boolean }>)['BOOK-42']!
        .sold;
    await sellBook42(dzpay, sold, 'books.json says BOOK-42 is sold');
    // A webhook that does not verify sells nothing.
    await writeFile(books, '{"BOOK-43": {"title": "Nedjma", "price": 1200, "sold": false}}');
    const forged = await postForgedSuccess(
      `http://localhost:${port}/dzpay/webhooks/platform`,
      'BOOK-43',
    );
    expect(forged.status).toBe(401);
    expect(await readFile(books, 'utf8')).toContain('"sold": false');
  }, 120_000);
});

describe('a new Python merchant, then its partner, following sdks/python/README.md on one pnpm start', () => {
  const dzpay = ownDzpay('python-quickstart');
  it('takes a payment with the example shop and its webhook, then sells BOOK-42 on the same demo merchant', async () => {
    const blocks = await readmeBlocks(PYTHON_README);
    const [shopPort, partnerPort] = [await freePort(), await freePort()];
    // Install: "or, in the clone, without installing" (nothing here reaches a Python index).
    const env = { ...process.env, PYTHONPATH: join(REPO, 'sdks/python/src') };
    const client = substitute(blockWith(blocks, 'python', 'api_key="pk_test_..."'), [
      ['pk_test_...', dzpay.demo.key],
      ['http://localhost:8080', dzpay.gateway],
    ]);

    // Merchant 3: the webhook settings, the signing secret printed once.
    const settings = substitute(blockWith(blocks, 'python', 'client.set_webhook_settings('), [
      ['8001', String(shopPort)],
    ]);
    const setup = join(dzpay.dir, 'webhook_setup.py');
    await writeFile(setup, `${client}\n${settings}`);
    const signingSecret = (await paste(`python3 ${setup}`, REPO, env)).trim();
    expect(signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    // Merchant 4: the example shop, paid through the sandbox; its webhook verified.
    const runShop = substitute(blockWith(blocks, 'sh', 'examples/checkout.py'), [
      ['cd sdks/python && pip install .', 'cd sdks/python'],
      ['pk_test_...', dzpay.demo.key],
      ['http://localhost:8080', dzpay.gateway],
      ['whsec_...', signingSecret],
    ]);
    await serve(runShop, REPO, shopPort, { ...env, PORT: String(shopPort) });
    const shopUrl = `http://localhost:${shopPort}`;
    const order = /name="reference" value="([^"]+)"/.exec(await (await fetch(shopUrl)).text())?.[1];
    expect(order).toBeDefined();
    const button = await fetch(`${shopUrl}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ reference: order! }).toString(),
      redirect: 'manual',
    });
    expect(button.status).toBe(303);
    const paid = await payByHttp(button.headers.get('location')!, CARDS.approved);
    expect(paid.finalUrl).toBe(`${shopUrl}/return?reference=${order}`);
    expect(await (await fetch(paid.finalUrl!)).text()).toContain(`Order ${order} is paid.`);
    const paymentId = new URL(paid.returnUrl).pathname.split('/').pop()!;
    await eventually(async () => {
      const answer = await fetch(`${dzpay.gateway}/api/v1/payments/${paymentId}/webhooks`, {
        headers: { 'x-api-key': dzpay.demo.key },
      });
      const { deliveries } = ((await answer.json()) as { data: { deliveries: Delivery[] } }).data;
      return deliveries.some((d) => d.eventType === 'payment.success' && d.state === 'success')
        ? true
        : undefined;
    }, "the shop's endpoint answered the verified payment.success");

    // Partner 3: the same demo merchant becomes the bookshop's; the CLI says where
    // webhooks go, the signing secret is the one the merchant already has.
    const cli = blockWith(blocks, 'sh', 'pnpm dzpay merchant partner');
    const connected = await paste(connectCommand(dzpay, cli, '8000', partnerPort), REPO);
    expect(connected).toContain('webhook signing secret unchanged');
    expect(connected).toContain(
      `webhooks go to http://127.0.0.1:${partnerPort}/dzpay/webhooks/platform`,
    );
    const runBookshop = substitute(blockWith(blocks, 'sh', 'examples/partner_server.py'), [
      ['whsec_...', signingSecret],
    ]);
    // PORT: the example's own variable (documented in it); the README's API_URL is 8000.
    const bookshop = await serve(runBookshop, REPO, partnerPort, {
      ...env,
      PORT: String(partnerPort),
    });
    // "The bookshop prints dzpay event <id>: payment.success BOOK-42, and from then on
    // answers ALREADY_PAID."
    await sellBook42(
      dzpay,
      () => Promise.resolve(/dzpay event \S+: payment\.success BOOK-42/.test(bookshop.output())),
      `the bookshop prints the verified payment.success:\n${bookshop.output()}`,
    );

    // Partner 4: the reference's status, with the client of the merchant quickstart's step 1.
    const check = blockWith(blocks, 'python', 'client.reference_status("BOOK-42")');
    const yours = ['mark_sold', 'keep_reserved', 'release']
      .map((name) => `def ${name}(reference): print("${name}", reference)`)
      .join('\n');
    const script = join(dzpay.dir, 'status.py');
    await writeFile(script, `${client}\n${yours}\n${check}`);
    expect((await paste(`python3 ${script}`, REPO, env)).trim()).toBe('mark_sold BOOK-42');
  }, 180_000);
});
