import { randomBytes } from 'node:crypto';
import { startCpuProbe, withTotal, type CpuPerRequest } from './cpu.ts';
import { settings } from './settings.ts';
import type { BenchStack, RunningStack } from './stack.ts';
import {
  measureWebhooks,
  registerBenchPartner,
  startBenchPartner,
  type WebhookSummary,
} from './webhooks.ts';

/**
 * The webhook dispatcher (started only now, so it loads no earlier scenario) delivering
 * a burst of payment outcomes to a partner in this process that verifies every request
 * with the partner SDK. A warmup burst first, then the measured one.
 */
export async function measureWebhookDeliveries(
  stack: BenchStack,
  running: RunningStack,
  scope: { merchantId: string; mode: 'test' },
  run: string,
): Promise<WebhookSummary & { cpuUsPerDelivery: CpuPerRequest }> {
  const { webhookConcurrency, webhookEvents, webhookWarmup } = settings;
  const secretsKey = randomBytes(32);
  const dispatcher = await stack.startService('webhook-dispatcher', {
    SECRETS_KEY: secretsKey.toString('base64'),
    WEBHOOK_CONCURRENCY_PER_ENDPOINT: String(webhookConcurrency),
    SCHEDULER_INTERVAL_MS: '50',
  });
  const signingSecret = randomBytes(24).toString('base64url');
  const local = await startBenchPartner(signingSecret);
  stack.closeAtCleanup(local);
  const deps = { nats: running.nats, prefix: stack.natsPrefix, secretsKey, scope };
  await registerBenchPartner(deps, {
    apiUrl: local.url,
    apiSecret: randomBytes(24).toString('base64url'),
    signingSecret,
  });
  console.log(
    `webhooks: ${webhookWarmup} events warmup, then ${webhookEvents} events, ` +
      `${webhookConcurrency} attempts in flight per endpoint`,
  );
  const warmup = await measureWebhooks(deps, local, `${run}-warmup`, webhookWarmup);
  if (warmup.delivered < warmup.events) {
    throw new Error(`webhooks warmup: ${warmup.delivered} of ${warmup.events} delivered`);
  }
  // Every process the burst keeps busy: the dispatcher, the projections reading the same
  // events, the servers, and the partner (in this process, with the publisher).
  const probe = startCpuProbe({ 'webhook-dispatcher': dispatcher.pid, ...running.cpu });
  const result = await measureWebhooks(deps, local, run, webhookEvents);
  const cpuUsPerDelivery = withTotal(probe(result.delivered));
  const failures = stack.failures();
  if (failures.length > 0) throw new Error(`webhooks run is void: ${failures.join('; ')}`);
  return { ...result, cpuUsPerDelivery };
}
