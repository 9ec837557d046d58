import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { entryOf, linkEnv, SANDBOX, SERVICES as STACK_SERVICES } from '@dzpay/stack';
import { freePort } from '@dzpay/testkit/processes';
import { startBalancer } from './balancer.ts';
import { CAMPAIGN_NATS_PREFIX, type CampaignInfra } from './infra.ts';
import type { CampaignSettings } from './settings.ts';
import { supervise, type SupervisedService } from './supervisor.ts';

/**
 * The services the campaign runs and a fault may kill: every one of dzpay's own but the
 * dashboard, which no actor of the campaign uses (and whose absence keeps each seed's
 * fault plan what it was before the dashboard left the gateway).
 */
export const SERVICES = STACK_SERVICES.filter((name) => name !== 'dashboard');
export type ServiceName = (typeof SERVICES)[number];

/**
 * dzpay as separate processes over the campaign's own infrastructure, plus the card
 * network sandbox (the outside world: never killed, its faults injected through its
 * control API). Ports are fixed at start, so a restarted service comes back where it was.
 */
export interface CampaignStack {
  gatewayUrl: string;
  sandboxUrl: string;
  secretsKey: string;
  /** NATS_PREFIX of every service: their subjects, streams and buckets carry it. */
  natsPrefix: string;
  /** Each service's replicas (one each, or two on the cluster topology). */
  services: Record<ServiceName, SupervisedService[]>;
  /** Every replica of every service. */
  all(): SupervisedService[];
  /** The lab client a replica connects to NATS and Postgres as (see CampaignInfra.cutClient). */
  clientIdOf(name: ServiceName, replica: number): number;
  /** The environment the admin CLI needs (database, NATS, SECRETS_KEY). */
  cliEnv: Record<string, string>;
  stop(): Promise<void>;
}

export async function startCampaignStack(deps: {
  infra: CampaignInfra;
  settings: CampaignSettings;
  mail: { host: string; port: number };
  logDir: string;
  /** Replicas of each service; the gateways then sit behind a balancer. */
  replicas: number;
}): Promise<CampaignStack> {
  const { infra, settings, replicas } = deps;
  const secretsKey = randomBytes(32).toString('base64');
  const [publicPort, sandboxPort] = [await freePort(), await freePort()];
  const gatewayPorts: number[] = [];
  for (let i = 0; i < replicas; i++)
    gatewayPorts.push(replicas === 1 ? publicPort : await freePort());
  // Payers, merchants and the card network's return URL all go through this address.
  const gatewayUrl = `http://127.0.0.1:${publicPort}`;
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
  const common = {
    DATABASE_URL: infra.databaseUrl,
    NATS_URL: infra.nats.url,
    STREAM_REPLICAS: String(infra.nats.replicas),
    // Time is compressed: a consumer that does not move is re-attached within seconds.
    CONSUMER_STALL_MS: '10000',
    REDIS_URL: infra.redis.url,
    NATS_PREFIX: CAMPAIGN_NATS_PREFIX,
    REDIS_PREFIX: 'camp:',
    LOG_LEVEL: 'info',
    OPS_HOST: '127.0.0.1',
    SHUTDOWN_TIMEOUT_MS: '5000',
  };
  const links = (name: ServiceName) =>
    linkEnv(name, { gatewayUrl, sandboxUrl, secretsKey, smtp: deps.mail });
  // Each service's own settings for the campaign: time compressed, limits out of the way.
  const own: Record<ServiceName, Record<string, string>> = {
    'qr-config': {},
    payments: {
      PAYMENT_WINDOW_MS: String(settings.windowMs),
      SWEEP_INTERVAL_MS: String(settings.sweepIntervalMs),
      RECONCILE_AFTER_MS: '5000',
      CARDNET_TIMEOUT_MS: String(settings.cardnetTimeoutMs),
      SETTLE_LEASE_MS: String(settings.settleLeaseMs),
      IDEMPOTENCY_LEASE_MS: '3000',
      REFUND_QUIET_MS: String(settings.refundQuietMs),
      REFUND_HORIZON_MS: String(settings.refundHorizonMs),
    },
    status: {},
    'webhook-dispatcher': {
      WEBHOOK_RETRY_SCHEDULE_MS: settings.webhookRetryScheduleMs.join(','),
      WEBHOOK_TIMEOUT_MS: '3000',
    },
    receipts: {},
    gateway: {
      HTTP_HOST: '127.0.0.1',
      STATUS_RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_PER_MINUTE: '1000000',
      PAYMENTS_TIMEOUT_MS: '12000',
    },
  };

  const sandbox = supervise(
    {
      name: 'cardnet-sandbox',
      entry: entryOf(SANDBOX),
      env: {
        LOG_LEVEL: 'info',
        SANDBOX_PORT: String(sandboxPort),
        SANDBOX_HOST: '127.0.0.1',
        SANDBOX_CONTROL: 'true',
        SANDBOX_CONFIRM_DELAY_MS: '5000',
      },
      readyUrl: `${sandboxUrl}/healthz`,
    },
    join(deps.logDir, 'cardnet-sandbox.log'),
  );
  await sandbox.start();

  const services = {} as Record<ServiceName, SupervisedService[]>;
  // 1, 2, …: client 0 is the harness's own.
  const clientIdOf = (name: ServiceName, replica: number) =>
    SERVICES.indexOf(name) * replicas + replica + 1;
  for (const name of SERVICES) {
    services[name] = [];
    for (let i = 0; i < replicas; i++) {
      const opsPort = await freePort();
      const endpoints = await infra.endpointsFor(clientIdOf(name, i));
      const replica = replicas === 1 ? name : `${name}#${i + 1}`;
      const http: Record<string, string> =
        name === 'gateway' ? { HTTP_PORT: String(gatewayPorts[i]) } : {};
      services[name].push(
        supervise(
          {
            name: replica,
            entry: entryOf(name),
            env: {
              ...common,
              // Its own NATS user: the campaign runs the permissions production runs.
              ...infra.nats.users.envOf(name),
              ...links(name),
              ...own[name],
              ...endpoints,
              ...http,
              OPS_PORT: String(opsPort),
            },
            readyUrl: `http://127.0.0.1:${opsPort}/readyz`,
          },
          join(deps.logDir, `${replica.replace('#', '-')}.log`),
        ),
      );
    }
  }
  const all = () => SERVICES.flatMap((name) => services[name]);
  // The gateways last: they publish the partner directory the others read.
  await Promise.all(
    SERVICES.filter((n) => n !== 'gateway').flatMap((n) => services[n].map((r) => r.start())),
  );
  await Promise.all(services.gateway.map((r) => r.start()));
  const balancer = replicas > 1 ? await startBalancer(publicPort, gatewayPorts) : null;

  return {
    gatewayUrl,
    sandboxUrl,
    secretsKey,
    natsPrefix: CAMPAIGN_NATS_PREFIX,
    services,
    all,
    clientIdOf,
    cliEnv: { ...common, ...infra.nats.users.envOf('cli'), SECRETS_KEY: secretsKey },
    async stop() {
      // The gateways first: they stop taking payers while the others finish.
      await Promise.all(services.gateway.map((r) => r.stop()));
      await balancer?.close();
      await Promise.all(all().map((r) => r.stop()));
      await sandbox.stop();
    },
  };
}
