import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createWebhookHandler, type WebhookEvent } from '@dzpay/partner-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack.ts';
import {
  createDashboardUser,
  DashboardAgent,
  SESSION_COOKIE,
  textOf,
} from './support/dashboard-agent.ts';

// The Webhooks page over real HTTP, with the dispatcher running: settings saved, the
// signing secret shown once, a test event that the merchant's server verifies with
// that very secret, and a rotation whose new secret then signs.

const SECRETS_KEY = randomBytes(32).toString('base64');
const password = 'correct horse battery staple';
let stack: Stack;
let receiver: Server;
let receiverUrl: string;
/** The merchant's webhook handler, made once the dashboard showed the secret. */
let verify: ((request: IncomingMessage, response: ServerResponse) => void) | null = null;
const received: WebhookEvent[] = [];
let browser: DashboardAgent;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    if (verify) return verify(request, response);
    request.resume();
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
  stack = await startStack(
    'dashboard-webhooks',
    { SECRETS_KEY },
    { withQrConfig: false, withWebhooks: { SECRETS_KEY }, withDashboard: true },
  );
  const merchant = await stack.merchant('Boulangerie Sétif');
  await createDashboardUser(stack, merchant.id, 'hooks@setif.example', password);
  browser = new DashboardAgent(stack.dashboard!.url, { 'accept-language': 'en' });
  expect((await browser.login('hooks@setif.example', password)).status).toBe(303);
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

const listen = (secret: string) => {
  verify = createWebhookHandler({
    signingSecret: secret,
    onEvent: (event) => received.push(event),
    // Only a request verified with this secret gets here (otherwise 401, not acknowledged).
    onTest: (event) => received.push(event as unknown as WebhookEvent),
  });
};

describe('the Webhooks page', () => {
  it('starts with nowhere to send, and refuses a test send', async () => {
    const page = await browser.get('/dashboard/webhooks');
    expect(page.status).toBe(200);
    expect(page.html).toContain('Nowhere yet');
    const test = await browser.post('/dashboard/webhooks/test', {});
    expect(test.status).toBe(409);
    expect(test.html).toContain('Set a webhook URL first.');
  });

  it('refuses a URL with a query and an empty event list', async () => {
    await browser.get('/dashboard/webhooks');
    const query = await browser.post('/dashboard/webhooks', {
      url: `${receiverUrl}?x=1`,
      events: 'payment.success',
    });
    expect(query.status).toBe(400);
    expect(query.html).toContain('must not have a query');
    const none = await browser.post('/dashboard/webhooks', { url: receiverUrl });
    expect(none.status).toBe(400);
    expect(none.html).toContain('Choose at least one event.');
  });

  it('saves the settings, shows the first signing secret once, and a test event is signed with it', async () => {
    await browser.get('/dashboard/webhooks');
    const body = new URLSearchParams({ _csrf: browser.csrf()!, url: receiverUrl });
    body.append('events', 'payment.success');
    body.append('events', 'payment.refunded');
    const saved = await fetch(`${stack.dashboard!.url}/dashboard/webhooks`, {
      method: 'POST',
      headers: {
        cookie: `${SESSION_COOKIE}=${browser.cookies.get(SESSION_COOKIE)}`,
        'content-type': 'application/x-www-form-urlencoded',
        'accept-language': 'en',
      },
      body: body.toString(),
    });
    expect(saved.status).toBe(200);
    const html = await saved.text();
    const secret = textOf(html, 'new-secret')!;
    expect(secret).toMatch(/^whsec_/);
    expect(textOf(html, 'webhook-url-now')).toBe(receiverUrl);
    expect(html).toMatch(
      /id="event-payment.refunded" name="events" value="payment.refunded" checked/,
    );
    expect(html).not.toMatch(/id="event-payment.fail" name="events" value="payment.fail" checked/);

    // Saving again keeps the secret (no new one shown).
    const again = await browser.post('/dashboard/webhooks', {
      url: receiverUrl,
      events: 'payment.success',
    });
    expect(again.status).toBe(303);
    expect((await browser.get('/dashboard/webhooks')).html).not.toContain('new-secret');

    listen(secret);
    const test = await browser.post('/dashboard/webhooks/test', {});
    expect(test.status).toBe(200);
    expect(test.html).toContain('Your server acknowledged the test event.');
    expect(received.at(-1)?.type).toBe('webhook.test');
  });

  it('rotates the signing secret: the new one, shown once, signs the next test event', async () => {
    await browser.get('/dashboard/webhooks');
    const rotated = await browser.post('/dashboard/webhooks/rotate', {});
    expect(rotated.status).toBe(200);
    const secret = textOf(rotated.html, 'new-secret')!;
    expect(secret).toMatch(/^whsec_/);
    expect(rotated.html).toContain('Previous secret valid until');
    listen(secret);
    const count = received.length;
    const test = await browser.post('/dashboard/webhooks/test', {});
    expect(test.html).toContain('Your server acknowledged the test event.');
    expect(received).toHaveLength(count + 1);
  });
});
