import { randomBytes } from 'node:crypto';
import { passwordVariable } from '@dzpay/stack/nats-permissions';
import type { z } from 'zod';
import { SandboxEnv } from '../../../services/cardnet-sandbox/src/config.ts';
import { DashboardEnv } from '../../../services/dashboard/src/config.ts';
import { GatewayEnv } from '../../../services/gateway/src/config.ts';
import { PaymentsEnv } from '../../../services/payments/src/config.ts';
import { QrConfigEnv } from '../../../services/qr-config/src/config.ts';
import { ReceiptsEnv } from '../../../services/receipts/src/config.ts';
import { StatusEnv } from '../../../services/status/src/config.ts';
import { DispatcherEnv } from '../../../services/webhook-dispatcher/src/config.ts';

// What the services accept, for holding the deployment files to it: each one's
// environment schema, the infrastructure it connects to, and sample secrets.

/** The card network simulator: development only, never in deploy/base. */
export const SANDBOX = 'cardnet-sandbox';

/** Schemas of the services on the platform runtime (Postgres, NATS, an ops port). */
export type RuntimeSchema =
  | typeof GatewayEnv
  | typeof QrConfigEnv
  | typeof PaymentsEnv
  | typeof StatusEnv
  | typeof DispatcherEnv
  | typeof ReceiptsEnv
  | typeof DashboardEnv;
export type EnvSchema = RuntimeSchema | typeof SandboxEnv;

export const runtimeSchemas: Record<string, RuntimeSchema> = {
  gateway: GatewayEnv,
  'qr-config': QrConfigEnv,
  payments: PaymentsEnv,
  status: StatusEnv,
  'webhook-dispatcher': DispatcherEnv,
  receipts: ReceiptsEnv,
  dashboard: DashboardEnv,
};

/** The environment schema of each service that the deployment files run. */
export const schemas: Record<string, EnvSchema> = { ...runtimeSchemas, [SANDBOX]: SandboxEnv };

/** The infrastructure each service connects to at start, and the variable naming it. */
export const infra: Record<string, Record<string, string>> = {
  gateway: { nats: 'NATS_URL', postgres: 'DATABASE_URL', redis: 'REDIS_URL' },
  'qr-config': { nats: 'NATS_URL', postgres: 'DATABASE_URL' },
  payments: { nats: 'NATS_URL', postgres: 'DATABASE_URL', redis: 'REDIS_URL' },
  status: { nats: 'NATS_URL', postgres: 'DATABASE_URL' },
  'webhook-dispatcher': { nats: 'NATS_URL', postgres: 'DATABASE_URL' },
  receipts: { nats: 'NATS_URL', postgres: 'DATABASE_URL', redis: 'REDIS_URL' },
  dashboard: { nats: 'NATS_URL', postgres: 'DATABASE_URL', redis: 'REDIS_URL' },
  [SANDBOX]: {},
};

/** The services that hold SECRETS_KEY: it seals and opens partners' and webhook secrets. */
export const SECRETS_KEY_HOLDERS = ['gateway', 'payments', 'webhook-dispatcher', 'dashboard'];

/** What a real dzpay-secrets would hold, to check that the whole environment parses. */
export const secretSamples: Record<string, string> = {
  DATABASE_URL: 'postgresql://dzpay:secret@dzpay-db-rw.dzpay-infra:5432/dzpay',
  REDIS_URL: 'redis://:secret@redis-master.dzpay-infra.svc:6379',
  SECRETS_KEY: randomBytes(32).toString('base64'),
  CARDNET_LIVE_USERNAME: 'merchant-user',
  CARDNET_LIVE_PASSWORD: 'merchant-password',
  SMTP_USER: 'receipts@dzpay.example',
  SMTP_PASSWORD: 'smtp-password',
  // Each service's NATS password (NATS_<SERVICE>_PASSWORD).
  ...Object.fromEntries(
    Object.keys(runtimeSchemas).map((name) => [passwordVariable(name), `nats-${name}-password`]),
  ),
};

/** Card network and mail relay credentials: only ever read from dzpay-secrets in Kubernetes. */
export const credentialPattern =
  /^(CARDNET_\w*(USERNAME|PASSWORD)|SMTP_(USER|PASSWORD)|NATS_(\w+_)?PASSWORD)$/;

export function schemaOf(service: string): EnvSchema {
  const schema = schemas[service];
  if (!schema) throw new Error(`no environment schema known for service ${service}`);
  return schema;
}

function runtimeSchemaOf(service: string): RuntimeSchema {
  const schema = runtimeSchemas[service];
  if (!schema) throw new Error(`${service} does not run on the platform runtime`);
  return schema;
}

export function keysOf(schema: EnvSchema): string[] {
  return Object.keys(schema.shape);
}

export function parseEnv<S extends z.ZodType>(schema: S, env: Record<string, string>): z.output<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  }
  return parsed.data;
}

/** The settings every runtime service has, whatever its own schema adds. */
export function runtimeConfigOf(service: string, env: Record<string, string>) {
  const config = parseEnv(runtimeSchemaOf(service), env);
  return {
    OPS_PORT: config.OPS_PORT,
    SHUTDOWN_TIMEOUT_MS: config.SHUTDOWN_TIMEOUT_MS,
    DATABASE_POOL_SIZE: config.DATABASE_POOL_SIZE,
    OTEL_EXPORTER_OTLP_ENDPOINT: config.OTEL_EXPORTER_OTLP_ENDPOINT,
    HTTP_PORT: 'HTTP_PORT' in config ? config.HTTP_PORT : undefined,
    PUBLIC_BASE_URL: 'PUBLIC_BASE_URL' in config ? config.PUBLIC_BASE_URL : undefined,
    SECRETS_KEY: 'SECRETS_KEY' in config ? config.SECRETS_KEY : undefined,
  };
}
