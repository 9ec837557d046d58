import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPartner, payProductReference } from './support/partner-merchant.ts';
import { CARDS } from './support/payer.ts';
import { startPartnerServer, type PartnerServer } from './support/partner-server.ts';
import { startStack, type Stack } from './support/stack.ts';

// One product-reference payment through every service, then what each ops port's
// /metrics says about it, and whether the Grafana dashboard asks for metrics that exist.

const SECRETS_KEY = randomBytes(32).toString('base64');
const SIGNING_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
let stack: Stack;
let partner: PartnerServer;
const scraped: Record<string, string> = {};

beforeAll(async () => {
  partner = await startPartnerServer({ signingSecret: SIGNING_SECRET });
  stack = await startStack(
    'metrics',
    { SECRETS_KEY },
    { withPayments: true, withStatus: true, withWebhooks: { SECRETS_KEY } },
  );
  const shop = await stack.merchant('Metrics shop', { walletId: 'W-M' });
  await connectPartner(
    stack,
    shop.id,
    { url: partner.url, signingSecret: SIGNING_SECRET },
    SECRETS_KEY,
  );
  await payProductReference(stack, shop.id, 'BOOK-42', CARDS.approved);
  // The webhook reaches the partner (and its attempt is recorded) within seconds.
  for (let waited = 0; partner.webhooks.length === 0 && waited < 15_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, 300));

  const ports = {
    gateway: stack.gateway.runtime.ops.port,
    payments: stack.payments!.ops.port,
    status: stack.status!.ops.port,
    'webhook-dispatcher': stack.webhooks!.ops.port,
  };
  for (const [service, port] of Object.entries(ports)) {
    scraped[service] = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  }
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await partner?.close();
});

/** The value of the first sample of `name` whose labels include all of `labels`. */
function sample(service: string, name: string, labels: Record<string, string> = {}): number {
  const lines = scraped[service]!.split('\n').filter(
    (line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `),
  );
  const line = lines.find((l) =>
    Object.entries(labels).every(([key, value]) => l.includes(`${key}="${value}"`)),
  );
  expect(line, `${service}: ${name} ${JSON.stringify(labels)}`).toBeDefined();
  return Number(line!.split(' ').at(-1));
}

describe('metrics on every ops port', () => {
  it('gateway: requests by route and status, and its NATS requests', () => {
    expect(
      sample('gateway', 'dzpay_http_request_duration_seconds_count', {
        route: '/pay/:merchantId/:reference',
        method: 'POST',
        status: '303',
      }),
    ).toBe(1);
    expect(
      sample('gateway', 'dzpay_nats_request_duration_seconds_count', {
        subject: 'payments.attempts.start',
        outcome: 'ok',
      }),
    ).toBe(1);
  });

  it('payments: card network calls, reference locks, its outbox', () => {
    expect(
      sample('payments', 'dzpay_cardnet_request_duration_seconds_count', {
        operation: 'register',
        mode: 'test',
        outcome: 'ok',
      }),
    ).toBe(1);
    expect(sample('payments', 'dzpay_reference_lock_attempts_total', { outcome: 'held' })).toBe(1);
    // Paid: the reference is no longer held.
    expect(sample('payments', 'dzpay_reference_locks_held')).toBe(0);
    expect(sample('payments', 'dzpay_outbox_backlog_events')).toBeGreaterThanOrEqual(0);
  });

  it('status and webhook-dispatcher: consumer lag, webhook attempts and backlog', () => {
    expect(
      sample('status', 'dzpay_stream_consumer_pending_messages', { consumer: 'status-projection' }),
    ).toBeGreaterThanOrEqual(0);
    expect(
      sample('webhook-dispatcher', 'dzpay_stream_consumer_pending_messages', {
        consumer: 'webhook-dispatcher',
      }),
    ).toBeGreaterThanOrEqual(0);
    expect(
      sample('webhook-dispatcher', 'dzpay_webhook_attempts_total', { outcome: 'success' }),
    ).toBe(1);
    expect(sample('webhook-dispatcher', 'dzpay_webhook_deliveries_pending', { due: 'true' })).toBe(
      0,
    );
  });

  it('the Grafana dashboard only asks for metrics the services serve', () => {
    const dashboard = JSON.parse(
      readFileSync(new URL('../deploy/grafana/dzpay-dashboard.json', import.meta.url), 'utf8'),
    ) as { panels: { title: string; targets: { expr: string }[] }[] };
    const served = Object.values(scraped).join('\n');
    for (const panel of dashboard.panels) {
      for (const { expr } of panel.targets) {
        const names = expr.match(/\b(dzpay_\w+|process_\w+)/g) ?? [];
        expect(names.length, panel.title).toBeGreaterThan(0);
        for (const name of names) {
          // A histogram's series are its name with _bucket, _count or _sum.
          const metric = name.replace(/_(bucket|count|sum)$/, '');
          expect(served, `${panel.title}: ${name}`).toMatch(new RegExp(`^# TYPE ${metric} `, 'm'));
        }
      }
    }
  });
});
