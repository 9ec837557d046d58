import { randomBytes } from 'node:crypto';
import { connectPostgres } from '@dzpay/platform';
import { startNatsCluster } from '@dzpay/testkit/nats-cluster';
import { measureFailover } from './failover.ts';
import { lagDuringBurst, lagUnderRegisterLoad } from './lags.ts';
import { measurer, measureServer } from './measure.ts';
import { seedMerchant } from './merchant.ts';
import { paymentsListRows } from './payments-list.ts';
import { measureRedisDown } from './redis-down.ts';
import { reportFailover, reportPaths, reportPaymentsList, reportRedisDown } from './report.ts';
import {
  checkSetQrConfig,
  checkStatusQuery,
  registerPaymentOptions,
  setQrConfigOptions,
  statusQueryOptions,
} from './requests.ts';
import { settings } from './settings.ts';
import { benchStack, GATEWAY_ENV, type BenchStack } from './stack.ts';
import { formatStatusFailover, problemsOf, runStatusFailover } from './status-failover.ts';
import {
  measureEventLag,
  measurePaymentLag,
  seedLockedReferences,
  seedReleasedReferences,
  startProductPartner,
  type StatusBenchDeps,
} from './status.ts';
import { measureWebhookDeliveries } from './webhook-deliveries.ts';
import { startBenchPartner } from './webhooks.ts';

// `pnpm bench`: a bare Fastify hello-world against POST /set-qr-config, payment
// registration and the payment status query through the real gateway, services, NATS
// and Postgres, the status projection's lag, webhook deliveries to a local partner, and
// the status query and set-qr-config with the gateway's Redis up and then killed, on
// this machine, in one run. BENCH_ONLY=redis-down runs the last alone; BENCH_ONLY=failover
// runs the NATS failover scenario, alone; BENCH_ONLY=status-failover the status replicas'
// and PAYMENTS leader's kills under payers (docs/status-failover.md). See docs/benchmarks.md.

if (settings.only === 'failover') await benchFailover();
else if (settings.only === 'status-failover') await benchStatusFailover();
else await benchAll();

/** Ctrl-C mid-run still stops the services and drops the database. */
function cleanupOnSignals(cleanup: () => Promise<void>): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void cleanup().finally(() => process.exit(130)));
  }
}

/**
 * A stack of its own on a 3-node NATS cluster (streams and consumers of 3 replicas, as in
 * production), the webhook dispatcher delivering to a partner in this process, and the
 * leaders of the paths stopped in turn (bench/failover.ts).
 */
async function benchFailover(): Promise<void> {
  const cluster = await startNatsCluster({ size: 3 });
  // PARTNER_SIGNING_SECRET is for the CLI's `merchant partner` (the services ignore it):
  // the partner below verifies with it.
  const signingSecret = randomBytes(24).toString('base64url');
  const stack = benchStack({
    natsUrl: cluster.urls,
    env: { STREAM_REPLICAS: '3', PARTNER_SIGNING_SECRET: signingSecret },
  });
  const cleanup = async () => {
    // A node left down by a failed round: the run's streams are deleted with all three up.
    for (const [index, node] of cluster.nodes.entries()) {
      if (!node.running) await cluster.restart(index).catch(() => undefined);
    }
    await stack.cleanup();
    await cluster.stop();
  };
  cleanupOnSignals(cleanup);
  try {
    const { publicBaseUrl } = await stack.start();
    const { merchantId, key } = await failoverMerchant(stack);
    const partner = await startBenchPartner(signingSecret);
    stack.closeAtCleanup(partner);
    // Through the CLI, as an operator would: the gateway publishes the directory entry the
    // dispatcher reads.
    await stack.cli('merchant', 'partner', merchantId, '--mode', 'test', '--api-url', partner.url);
    await stack.startService('webhook-dispatcher');
    const payments = connectPostgres(stack.databaseUrl, 'payments', 1);
    stack.closeAtCleanup({ close: () => payments.end() });
    const { failoverKills: kills, failoverSignals: signals } = settings;
    console.log(
      `failover: ${kills} stops per path and per signal (${signals.join(', ')}), ` +
        'one probe event every 100 ms on each path',
    );
    const result = await measureFailover({
      cluster,
      prefix: stack.natsPrefix,
      scope: { merchantId, mode: 'test' },
      gateway: { baseUrl: publicBaseUrl, key },
      payments,
      partner,
      run: randomBytes(3).toString('hex'),
      kills,
      signals,
    });
    const failures = stack.failures();
    if (failures.length > 0) throw new Error(`failover run is void: ${failures.join('; ')}`);
    reportFailover(result);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  } finally {
    await cleanup();
  }
}

/**
 * Status replicas and the PAYMENTS leader killed in turn while payers pay and a sampler
 * reads status (bench/status-failover.ts): fails on any violation of its oracle or a
 * status p99 over 2 s within the kill windows.
 */
async function benchStatusFailover(): Promise<void> {
  const kills = settings.statusFailoverKills;
  try {
    const result = await runStatusFailover({
      replicaKills: kills,
      leaderKills: kills,
      references: settings.statusFailoverReferences,
      log: (line) => console.log(line),
      onCleanup: cleanupOnSignals,
    });
    for (const line of formatStatusFailover(result)) console.log(line);
    const problems = problemsOf(result, { latencyTarget: true });
    if (problems.length > 0) {
      console.error(`status-failover FAILS: ${problems.join('; ')}`);
      process.exitCode = 1;
    } else console.log('status-failover: no violation, p99 within the target');
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}

/** A merchant and its test key, without the QR codes the other scenarios rotate over. */
async function failoverMerchant(stack: BenchStack): Promise<{ merchantId: string; key: string }> {
  const merchant = await stack.cli<{ id: string }>('merchant', 'create', 'Bench merchant');
  await stack.cli('merchant', 'configure', merchant.id, '--wallet', 'bench-wallet');
  const { key } = await stack.cli<{ key: string }>('key', 'issue', merchant.id, '--mode', 'test');
  return { merchantId: merchant.id, key };
}

/** Every scenario but failover (or the one BENCH_ONLY names). */
async function benchAll(): Promise<void> {
  const { only, lagSamples, lagGapMs, burstEvents } = settings;
  const stack = benchStack();
  cleanupOnSignals(() => stack.cleanup());

  try {
    const running = await stack.start();
    const { nats, publicBaseUrl } = running;
    const measure = measurer(() => stack.failures());
    const { merchantId, key, tokens } = await seedMerchant(stack);
    await checkSetQrConfig(publicBaseUrl, key, tokens[0]!);
    const run = randomBytes(3).toString('hex');
    const status: StatusBenchDeps = {
      nats,
      prefix: stack.natsPrefix,
      scope: { merchantId, mode: 'test' },
    };
    // The full-path lags ask the public endpoint, as a partner would.
    const asPartner: StatusBenchDeps = { ...status, gateway: { baseUrl: publicBaseUrl, key } };
    const references = Array.from(
      { length: settings.statusReferences },
      (_, i) => `PRODUCT-${run}-${i}`,
    );
    const measureHelloWorld = () =>
      measureServer(
        { stack, running, measure },
        'hello-world',
        './hello-world.ts',
        {},
        {
          method: 'GET',
        },
      );
    /** The stack's Redis up, then down: the same scenarios through a gateway of its own. */
    const redisDown = () =>
      measureRedisDown({
        startGateway: (extra) => stack.startService('gateway', { ...GATEWAY_ENV, ...extra }),
        measure,
        scenarios: {
          'status-query': (baseUrl) => statusQueryOptions(baseUrl, key, references),
          'set-qr-config': (baseUrl) => setQrConfigOptions(baseUrl, key, tokens),
        },
        async check(baseUrl) {
          await checkSetQrConfig(baseUrl, key, tokens[0]!);
          await checkStatusQuery(baseUrl, key, references[0]!);
        },
        pids: running.pids,
      });

    if (only === 'redis-down') {
      await seedLockedReferences(status, references);
      reportRedisDown(await redisDown());
    } else if (only === 'payments-list') {
      const helloWorld = await measureHelloWorld();
      reportPaymentsList(helloWorld, await paymentsListRows(stack, measure, publicBaseUrl));
    } else {
      const helloWorld = await measureHelloWorld();
      const natsHop = await measureServer(
        { stack, running, measure },
        'nats-hop',
        './nats-hop.ts',
        { NATS_URL: stack.natsUrl, NATS_PREFIX: stack.natsPrefix },
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
      );

      const setQrConfig = await measure(
        'set-qr-config',
        setQrConfigOptions(publicBaseUrl, key, tokens),
        running.cpu,
      );
      const registerPayment = await measure(
        'register-payment',
        registerPaymentOptions(publicBaseUrl, key, `${run}-r`),
        running.cpu,
      );

      // The references must exist before they are asked for: one locking AGENCY attempt
      // each, published to PAYMENTS, projected by status.
      await seedLockedReferences(status, references);
      await checkStatusQuery(publicBaseUrl, key, references[0]!);
      const statusQuery = await measure(
        'status-query',
        statusQueryOptions(publicBaseUrl, key, references),
        running.cpu,
      );
      // Released references: each read goes to status, which checks payments' rows
      // before it calls a reference free (docs/status.md), the price of that rule.
      const released = references.map((reference) => `${reference}-free`);
      await seedReleasedReferences(status, released);
      await checkStatusQuery(publicBaseUrl, key, released[0]!, 'released');
      const statusQueryFree = await measure(
        'status-query-free',
        statusQueryOptions(publicBaseUrl, key, released),
        running.cpu,
      );

      // Lags are measured with no load from the bench on the stack, one event at a time.
      console.log(`status lag: ${lagSamples} events published one at a time, ${lagGapMs} ms apart`);
      const eventLag = await measureEventLag(status, run, lagSamples, lagGapMs);
      console.log(`status lag (full path): ${lagSamples} product payments started one at a time`);
      const products = await startProductPartner();
      stack.closeAtCleanup(products);
      await stack.cli(
        'merchant',
        'partner',
        merchantId,
        '--mode',
        'test',
        '--api-url',
        products.url,
      );
      const samples = (taken: number) => taken < lagSamples;
      const paymentLag = await measurePaymentLag(asPartner, publicBaseUrl, run, samples, lagGapMs);
      const busy = { asPartner, publicBaseUrl, key, run };
      const underLoad = await lagUnderRegisterLoad(
        busy,
        registerPayment.requests.average / 2,
        samples,
      );
      const duringBurst = await lagDuringBurst({ ...busy, status });
      const failures = stack.failures();
      if (failures.length > 0) throw new Error(`status lag run is void: ${failures.join('; ')}`);

      const webhooks = await measureWebhookDeliveries(
        stack,
        running,
        { merchantId, mode: 'test' },
        run,
      );
      const listRows =
        only === 'paths' ? undefined : await paymentsListRows(stack, measure, publicBaseUrl);
      // Last: a gateway and a Redis of its own, both stopped when it ends.
      const redisDownRows = only === 'paths' ? undefined : await redisDown();

      reportPaths(
        { helloWorld, natsHop, setQrConfig, registerPayment, statusQuery, statusQueryFree },
        {
          'status-lag': eventLag,
          'status-lag-full-path': paymentLag,
          'full-path, register-payment at half rate': underLoad,
          [`full-path, during a ${burstEvents}-event burst`]: duringBurst,
        },
        webhooks,
      );
      if (redisDownRows) reportRedisDown(redisDownRows);
      if (listRows) reportPaymentsList(helloWorld, listRows);
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  } finally {
    await stack.cleanup();
  }
}
