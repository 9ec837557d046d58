import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import type { z } from 'zod';
import { SandboxEnv } from '../services/cardnet-sandbox/src/config.ts';
import { PaymentsEnv } from '../services/payments/src/config.ts';
import { QrConfigEnv } from '../services/qr-config/src/config.ts';
import { ReceiptsEnv } from '../services/receipts/src/config.ts';
import { StatusEnv } from '../services/status/src/config.ts';
import { DispatcherEnv } from '../services/webhook-dispatcher/src/config.ts';
import { GatewayEnv } from '../services/gateway/src/config.ts';
import { secretsKey } from '@dzpay/platform';
import {
  authorizationBlock,
  NATS_USERS,
  passwordVariable,
  type NatsUser,
} from '@dzpay/stack/nats-permissions';

// No Docker engine or cluster runs the deployment files in CI, so this reads them and
// holds them to what the services actually accept: a renamed variable, a moved ops
// port or a lost probe fails here instead of in a rollout.

const root = new URL('../', import.meta.url);
const baseDir = new URL('deploy/base/', root);
const devDir = new URL('deploy/overlays/dev/', root);

/** The card network simulator: development only, never in deploy/base. */
const sandbox = 'cardnet-sandbox';

/** Schemas of the services on the platform runtime (Postgres, NATS, an ops port). */
type RuntimeSchema =
  | typeof GatewayEnv
  | typeof QrConfigEnv
  | typeof PaymentsEnv
  | typeof StatusEnv
  | typeof DispatcherEnv
  | typeof ReceiptsEnv;
type EnvSchema = RuntimeSchema | typeof SandboxEnv;

const runtimeSchemas: Record<string, RuntimeSchema> = {
  gateway: GatewayEnv,
  'qr-config': QrConfigEnv,
  payments: PaymentsEnv,
  status: StatusEnv,
  'webhook-dispatcher': DispatcherEnv,
  receipts: ReceiptsEnv,
};

/** The environment schema of each service that the deployment files run. */
const schemas: Record<string, EnvSchema> = { ...runtimeSchemas, [sandbox]: SandboxEnv };

/** The infrastructure each service connects to at start, and the variable naming it. */
const infra: Record<string, Record<string, string>> = {
  gateway: { nats: 'NATS_URL', postgres: 'DATABASE_URL', redis: 'REDIS_URL' },
  'qr-config': { nats: 'NATS_URL', postgres: 'DATABASE_URL' },
  payments: { nats: 'NATS_URL', postgres: 'DATABASE_URL', redis: 'REDIS_URL' },
  status: { nats: 'NATS_URL', postgres: 'DATABASE_URL' },
  'webhook-dispatcher': { nats: 'NATS_URL', postgres: 'DATABASE_URL' },
  receipts: { nats: 'NATS_URL', postgres: 'DATABASE_URL', redis: 'REDIS_URL' },
  [sandbox]: {},
};

/** What a real dzpay-secrets would hold, to check that the whole environment parses. */
const secretSamples: Record<string, string> = {
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

/** The users of the NATS servers, generated for NATS_PREFIX (deploy/nats/authorization.conf). */
const natsAuthorizationFile = 'deploy/nats/authorization.conf';

/** What the generator writes for production: every password read from the servers' environment. */
const generatedAuthorization = (prefix: string) =>
  authorizationBlock({ prefix, password: (user) => ({ env: passwordVariable(user) }) });

/** Card network and mail relay credentials: only ever read from dzpay-secrets in Kubernetes. */
const credentialPattern =
  /^(CARDNET_\w*(USERNAME|PASSWORD)|SMTP_(USER|PASSWORD)|NATS_(\w+_)?PASSWORD)$/;

function readText(url: URL): string {
  return readFileSync(url, 'utf8');
}

/** The text of every file under deploy/, by path relative to the repository. */
function deployFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: URL, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`);
      else files.set(`${prefix}${entry.name}`, readText(new URL(entry.name, dir)));
    }
  };
  walk(new URL('deploy/', root), 'deploy/');
  return files;
}

function schemaOf(service: string): EnvSchema {
  const schema = schemas[service];
  if (!schema) throw new Error(`no environment schema known for service ${service}`);
  return schema;
}

function runtimeSchemaOf(service: string): RuntimeSchema {
  const schema = runtimeSchemas[service];
  if (!schema) throw new Error(`${service} does not run on the platform runtime`);
  return schema;
}

function keysOf(schema: EnvSchema): string[] {
  return Object.keys(schema.shape);
}

function parseEnv<S extends z.ZodType>(schema: S, env: Record<string, string>): z.output<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  }
  return parsed.data;
}

/** Milliseconds of a compose duration such as 30s, 1m30s or 500ms. */
function durationMs(text: string): number {
  const parts = [...text.matchAll(/(\d+)(ms|s|m|h)/g)];
  expect(parts.map((p) => p[0]).join(''), `duration ${text}`).toBe(text);
  const unit: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
  return parts.reduce((sum, [, n, u]) => sum + Number(n) * unit[u!]!, 0);
}

describe('docker-compose.yml', () => {
  interface ComposeService {
    image?: string;
    build?: { context?: string; dockerfile?: string; args?: Record<string, string> };
    command?: string | string[];
    environment?: Record<string, string | number | boolean | null> | string[];
    healthcheck?: { test?: string | string[]; disable?: boolean };
    depends_on?: Record<string, { condition?: string }> | string[];
    ports?: (string | number | { target?: number; published?: string | number })[];
    volumes?: (string | { target?: string })[];
    stop_grace_period?: string;
  }
  const compose = parse(readText(new URL('docker-compose.yml', root))) as {
    services: Record<string, ComposeService>;
    volumes?: Record<string, unknown>;
  };
  const services = compose.services;
  const apps = Object.keys(schemas);
  const runtimeApps = Object.keys(runtimeSchemas);

  function service(name: string): ComposeService {
    const found = services[name];
    if (!found) throw new Error(`compose has no service ${name}`);
    return found;
  }

  function environment(name: string): Record<string, string> {
    const env = service(name).environment ?? {};
    if (Array.isArray(env)) {
      return Object.fromEntries(
        env.map((entry) => [
          entry.slice(0, entry.indexOf('=')),
          entry.slice(entry.indexOf('=') + 1),
        ]),
      );
    }
    return Object.fromEntries(Object.entries(env).map(([key, value]) => [key, String(value)]));
  }

  function command(name: string): string[] {
    const cmd = service(name).command ?? [];
    return Array.isArray(cmd) ? cmd : cmd.split(/\s+/);
  }

  function healthcheck(name: string): string {
    const test = service(name).healthcheck?.test ?? [];
    return Array.isArray(test) ? test.join(' ') : test;
  }

  function dependency(name: string, on: string): string | undefined {
    const dependsOn = service(name).depends_on;
    expect(Array.isArray(dependsOn), `${name}: depends_on with conditions`).toBe(false);
    return (dependsOn as Record<string, { condition?: string }> | undefined)?.[on]?.condition;
  }

  /** The host port that publishes a container port, if any. */
  function publishedPort(name: string, target: number): number | undefined {
    for (const port of service(name).ports ?? []) {
      if (typeof port === 'object') {
        if (port.target === target) return Number(port.published ?? target);
        continue;
      }
      const parts = String(port).split(':');
      if (Number(parts.at(-1)) === target) return Number(parts.at(-2) ?? target);
    }
    return undefined;
  }

  it('runs NATS, Postgres, Redis, a mail catcher, every dzpay service and the sandbox', () => {
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining([
        'nats',
        'postgres',
        'redis',
        'gateway',
        'qr-config',
        'payments',
        'status',
        'webhook-dispatcher',
        'receipts',
        'mailpit',
        'otel-lgtm',
        sandbox,
      ]),
    );
    const servicesDir = new URL('services/', root);
    const runnable = readdirSync(servicesDir).filter((name) =>
      existsSync(new URL(`${name}/src/main.ts`, servicesDir)),
    );
    expect([...apps].sort(), 'a service of services/ that compose does not run').toEqual(
      runnable.sort(),
    );
    expect(service('nats').image).toMatch(/^nats:2\.11\b/);
    expect(service('postgres').image).toMatch(/^postgres:17\b/);
    expect(service('redis').image).toMatch(/^redis:7\b/);
    expect(environment('postgres').POSTGRES_DB).toBe('dzpay');
  });

  it('enables JetStream on a volume, with the monitoring port for the health check', () => {
    const args = command('nats');
    expect(args.some((arg) => arg === '-js' || arg === '--jetstream')).toBe(true);
    const storeFlag = args.findIndex((arg) => arg === '-sd' || arg === '--store_dir');
    expect(storeFlag, 'JetStream store directory flag').toBeGreaterThanOrEqual(0);
    const storeDir = args[storeFlag + 1];
    const mounts = (service('nats').volumes ?? []).map((v) =>
      typeof v === 'string' ? v.split(':')[1] : v.target,
    );
    expect(mounts, 'the JetStream store survives a container replacement').toContain(storeDir);
    const monitorFlag = args.findIndex((arg) => arg === '-m' || arg === '--http_port');
    expect(monitorFlag).toBeGreaterThanOrEqual(0);
    expect(healthcheck('nats')).toContain(`:${args[monitorFlag + 1]}/healthz`);
  });

  it('gives every container a health check', () => {
    for (const name of Object.keys(services)) {
      const check = service(name).healthcheck;
      expect(check?.disable, name).not.toBe(true);
      expect(healthcheck(name).replace(/^(CMD|CMD-SHELL)\s*/, ''), name).not.toBe('');
    }
    expect(healthcheck('postgres')).toContain('pg_isready');
  });

  it('builds each service from the Dockerfile with its SERVICE argument', () => {
    for (const name of apps) {
      const build = service(name).build;
      expect(build?.context, name).toBe('.');
      expect(build?.dockerfile ?? 'Dockerfile', name).toBe('Dockerfile');
      expect(build?.args?.SERVICE, name).toBe(name);
      expect(existsSync(new URL(`services/${name}/src/main.ts`, root)), name).toBe(true);
    }
  });

  it('starts the services only once their infrastructure is healthy', () => {
    for (const name of apps) {
      for (const on of Object.keys(infra[name]!)) {
        expect(dependency(name, on), `${name} on ${on}`).toBe('service_healthy');
      }
    }
    expect(dependency('payments', sandbox), 'payments on the sandbox').toBe('service_healthy');
    expect(dependency('gateway', 'payments'), 'gateway on payments').toBe('service_healthy');
    expect(dependency('gateway', 'status'), 'gateway on status').toBe('service_healthy');
    expect(dependency('gateway', 'receipts'), 'gateway on receipts').toBe('service_healthy');
    expect(dependency('receipts', 'mailpit'), 'receipts on the mail catcher').toBe(
      'service_healthy',
    );
  });

  it('passes only variables the services read, pointing at the other containers', () => {
    for (const name of apps) {
      const schema = schemaOf(name);
      const env = environment(name);
      for (const key of Object.keys(env)) expect(keysOf(schema), `${name}: ${key}`).toContain(key);
      parseEnv(schema, env);
      for (const [host, variable] of Object.entries(infra[name]!)) {
        expect(env[variable], `${name}: ${variable}`).toBeDefined();
        expect(new URL(env[variable]!).hostname, `${name}: ${variable}`).toBe(host);
      }
      if (!('redis' in infra[name]!)) {
        expect(env, `${name} does not use Redis`).not.toHaveProperty('REDIS_URL');
        expect(env, `${name} does not use Redis`).not.toHaveProperty('REDIS_PREFIX');
      }
    }
    expect(environment('payments').REDIS_PREFIX, 'payments: REDIS_PREFIX').toBe(
      environment('gateway').REDIS_PREFIX,
    );
  });

  it('gives the gateway, payments and webhook-dispatcher one development SECRETS_KEY, for local development only', () => {
    const key = environment('gateway').SECRETS_KEY;
    expect(key, 'gateway: SECRETS_KEY').toBeDefined();
    expect(secretsKey(key!)).toHaveLength(32);
    // The dispatcher opens the partner secrets the gateway sealed: the same key.
    for (const holder of ['payments', 'webhook-dispatcher']) {
      expect(environment(holder).SECRETS_KEY, `${holder}: SECRETS_KEY`).toBe(key);
    }
    for (const name of Object.keys(services)) {
      if (['gateway', 'payments', 'webhook-dispatcher'].includes(name)) continue;
      expect(environment(name), `${name}: SECRETS_KEY`).not.toHaveProperty('SECRETS_KEY');
    }
    const lines = readText(new URL('docker-compose.yml', root)).split('\n');
    const at = lines.flatMap((line, i) => (/^\s*SECRETS_KEY:/.test(line) ? [i] : []));
    expect(at, 'SECRETS_KEY lines').toHaveLength(3);
    for (const line of at) {
      const comment: string[] = [];
      for (let i = line - 1; i >= 0 && /^\s*#/.test(lines[i]!); i--) comment.unshift(lines[i]!);
      expect(comment.join(' '), 'comment above SECRETS_KEY').toMatch(/local development only/);
    }
    for (const [file, text] of deployFiles()) {
      expect(text.includes(key!), `${file} reuses the development key`).toBe(false);
    }
  });

  it('runs NATS with the generated users, and logs each service in as its own', () => {
    const args = command('nats');
    const config = args[args.indexOf('-c') + 1];
    expect(config, 'nats -c').toBeDefined();
    const mount = (service('nats').volumes ?? []).find(
      (v): v is string => typeof v === 'string' && v.split(':')[1] === config,
    );
    expect(mount?.split(':')[0], 'the mounted configuration').toBe(`./${natsAuthorizationFile}`);
    const nats = environment('nats');
    const file = readText(new URL(natsAuthorizationFile, root));
    // Every password the configuration reads is set on the nats service.
    for (const [, variable] of file.matchAll(/password: \$(\w+)/g)) {
      expect(nats[variable!], `nats: ${variable}`).toBeDefined();
    }
    for (const name of runtimeApps) {
      const env = environment(name);
      expect(env.NATS_USER, `${name}: NATS_USER`).toBe(name);
      expect(env.NATS_PASSWORD, `${name}: NATS_PASSWORD`).toBe(nats[passwordVariable(name)]);
      expect(env.NATS_PREFIX, `${name}: the prefix the users were generated for`).toBe('dzpay');
    }
    const lines = readText(new URL('docker-compose.yml', root)).split('\n');
    const at = lines.findIndex((line) => /^\s*NATS_GATEWAY_PASSWORD:/.test(line));
    expect(lines.slice(at - 3, at).join(' '), 'comment above the passwords').toMatch(
      /local\s.*development only/,
    );
  });

  it('publishes only the gateway, the sandbox and the mail catcher UI', () => {
    const unpublished = ['qr-config', 'payments', 'status', 'webhook-dispatcher', 'receipts'];
    for (const name of [...unpublished, 'nats', 'postgres', 'redis']) {
      expect(service(name).ports ?? [], `${name} has no public port`).toEqual([]);
    }
  });

  it('sends receipts to the mail catcher, whose web UI is published', () => {
    const receipts = ReceiptsEnv.parse(environment('receipts'));
    expect(receipts.SMTP_HOST).toBe('mailpit');
    expect(receipts.SMTP_PORT).toBe(1025);
    expect(service('mailpit').image).toMatch(/^axllent\/mailpit:/);
    expect(publishedPort('mailpit', 8025), 'the web UI').toBe(8025);
    expect(publishedPort('mailpit', 1025), 'SMTP stays inside compose').toBeUndefined();
  });

  it("sends every service's traces to the collector, whose viewer is published", () => {
    for (const name of runtimeApps) {
      const endpoint = parseEnv(
        runtimeSchemaOf(name),
        environment(name),
      ).OTEL_EXPORTER_OTLP_ENDPOINT;
      expect(endpoint && new URL(endpoint).host, name).toBe('otel-lgtm:4318');
    }
    expect(publishedPort('otel-lgtm', 3000), 'Grafana').toBe(3000);
  });

  it('checks readiness on the ops port and outlasts a graceful shutdown', () => {
    for (const name of runtimeApps) {
      const config = parseEnv(runtimeSchemaOf(name), environment(name));
      expect(healthcheck(name), name).toContain(`127.0.0.1:${config.OPS_PORT}/readyz`);
      const grace = durationMs(service(name).stop_grace_period ?? '10s');
      expect(grace, `${name}: stop_grace_period`).toBeGreaterThan(config.SHUTDOWN_TIMEOUT_MS);
    }
  });

  it('publishes the gateway HTTP port, the public URL of the gateway and payments', () => {
    const config = GatewayEnv.parse(environment('gateway'));
    const published = publishedPort('gateway', config.HTTP_PORT);
    expect(published, 'gateway HTTP port published').toBeDefined();
    const urls = {
      gateway: config.PUBLIC_BASE_URL,
      payments: PaymentsEnv.parse(environment('payments')).PUBLIC_BASE_URL,
    };
    for (const [name, publicBaseUrl] of Object.entries(urls)) {
      const url = new URL(publicBaseUrl);
      expect(environment(name).PUBLIC_BASE_URL, `${name}: PUBLIC_BASE_URL`).toBeDefined();
      expect(url.hostname, `${name}: PUBLIC_BASE_URL`).toBe('localhost');
      expect(Number(url.port), `${name}: PUBLIC_BASE_URL`).toBe(published);
    }
  });

  it('points payments test keys at the sandbox, which serves its card form on a published port', () => {
    const sandboxConfig = SandboxEnv.parse(environment(sandbox));
    const payments = PaymentsEnv.parse(environment('payments'));
    expect(environment('payments').CARDNET_TEST_URL, 'CARDNET_TEST_URL').toBeDefined();
    const testUrl = new URL(payments.CARDNET_TEST_URL);
    expect(testUrl.hostname).toBe(sandbox);
    expect(Number(testUrl.port)).toBe(sandboxConfig.SANDBOX_PORT);
    expect(payments.CARDNET_TEST_USERNAME).toBe(sandboxConfig.SANDBOX_USERNAME);
    expect(payments.CARDNET_TEST_PASSWORD).toBe(sandboxConfig.SANDBOX_PASSWORD);
    expect(payments.CARDNET_LIVE_URL, 'no live card network in compose').toBeUndefined();

    expect(healthcheck(sandbox)).toContain(`127.0.0.1:${sandboxConfig.SANDBOX_PORT}/healthz`);
    const published = publishedPort(sandbox, sandboxConfig.SANDBOX_PORT);
    expect(published, 'sandbox port published').toBeDefined();
    expect(sandboxConfig.SANDBOX_PUBLIC_URL, 'SANDBOX_PUBLIC_URL').toBeDefined();
    const publicUrl = new URL(sandboxConfig.SANDBOX_PUBLIC_URL!);
    expect(publicUrl.hostname).toBe('localhost');
    expect(Number(publicUrl.port)).toBe(published);
    expect(service('payments').ports ?? [], 'payments has no public port').toEqual([]);
  });
});

describe('Dockerfile', () => {
  const dockerfile = readText(new URL('Dockerfile', root));
  const pkg = JSON.parse(readText(new URL('package.json', root))) as { packageManager: string };

  it('installs the pinned pnpm and the locked production dependencies', () => {
    expect(dockerfile).toMatch(/^FROM node:24|^ARG NODE_IMAGE=node:24/m);
    expect(dockerfile).toContain(pkg.packageManager);
    expect(dockerfile).toMatch(/pnpm install [^\n]*--frozen-lockfile/);
    expect(dockerfile).toMatch(/pnpm install [^\n]*--prod/);
  });

  it('runs the selected service as a non-root user and stops it with SIGTERM', () => {
    expect(dockerfile).toMatch(/^ARG SERVICE$/m);
    const users = [...dockerfile.matchAll(/^USER (\S+)/gm)].map((m) => m[1]!);
    expect(users.at(-1)).toMatch(/^[1-9]\d*(:\d+)?$/);
    expect(dockerfile).toMatch(/^STOPSIGNAL SIGTERM$/m);
    expect(dockerfile).toMatch(/^CMD exec node "?services\/\$\{SERVICE\}\/src\/main\.ts"?$/m);
  });

  it('keeps node_modules and the git history out of the build context', () => {
    const ignored = readText(new URL('.dockerignore', root)).split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '.git']));
  });
});

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}
interface Container {
  name: string;
  image: string;
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] }; sleep?: { seconds: number } } };
  resources?: {
    requests?: { cpu?: string; memory?: string };
    limits?: { cpu?: string; memory?: string };
  };
  securityContext?: {
    runAsNonRoot?: boolean;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: string[] };
  };
}
interface Probe {
  httpGet?: { path: string; port: string | number };
}
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  spec?: {
    replicas?: number;
    strategy?: { type?: string; rollingUpdate?: { maxSurge?: number | string } };
    /** A Deployment's holds matchLabels; a Service's is the labels themselves. */
    selector?: Record<string, unknown>;
    ports?: { name?: string; port: number; targetPort?: string | number }[];
    template?: {
      metadata: { labels: Record<string, string> };
      spec: {
        terminationGracePeriodSeconds?: number;
        securityContext?: { runAsNonRoot?: boolean };
        containers: Container[];
      };
    };
  };
}
interface Kustomization {
  namespace?: string;
  resources?: string[];
  patches?: { path?: string; patch?: string; target?: unknown }[];
  commonLabels?: Record<string, string>;
  labels?: { pairs: Record<string, string> }[];
  images?: { name: string }[];
}

/** A kustomize directory read as files: its kustomization and the objects of its YAML. */
interface KustomizeDir {
  dir: URL;
  files: string[];
  kustomizationFile: string | undefined;
  kustomization: Kustomization | undefined;
  /** Objects of the files listed in resources; patches are not objects. */
  objects: K8sObject[];
  patchFiles: string[];
}

function parseObjects(url: URL, file: string): K8sObject[] {
  return parseAllDocuments(readText(url))
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.join('; ')}`);
      return doc.toJS() as K8sObject;
    })
    .filter((object) => object !== null);
}

function readKustomizeDir(dir: URL): KustomizeDir {
  const files = readdirSync(dir).filter((file) => /\.ya?ml$/.test(file));
  const kustomizationFile = files.find((file) => /^kustomization\.ya?ml$/.test(file));
  const kustomization = parse(readText(new URL(kustomizationFile ?? 'missing', dir))) as
    Kustomization | undefined;
  const patchFiles = (kustomization?.patches ?? []).flatMap((patch) => patch.path ?? []);
  const objects = files
    .filter((file) => file !== kustomizationFile && !patchFiles.includes(file))
    .flatMap((file) => parseObjects(new URL(file, dir), file));
  return { dir, files, kustomizationFile, kustomization, objects, patchFiles };
}

function labelsOf(kustomization: Kustomization): Record<string, string> {
  const labels: Record<string, string> = { ...kustomization.commonLabels };
  for (const entry of kustomization.labels ?? []) Object.assign(labels, entry.pairs);
  return labels;
}

function ofKind(objects: K8sObject[], kind: string): K8sObject[] {
  return objects.filter((object) => object.kind === kind);
}

function container(deployment: K8sObject): Container {
  const containers = deployment.spec?.template?.spec.containers ?? [];
  expect(containers, deployment.metadata.name).toHaveLength(1);
  return containers[0]!;
}

function portNumber(c: Container, port: string | number | undefined): number | undefined {
  return typeof port === 'number'
    ? port
    : c.ports?.find((candidate) => candidate.name === port)?.containerPort;
}

/**
 * The environment a container starts with, secrets replaced by sample values. Without
 * optional secrets, it is the environment of a dzpay-secrets holding only the required
 * keys.
 */
function environmentOf(
  deployment: K8sObject,
  configMaps: Map<string, Record<string, string>>,
  options: { optionalSecrets?: boolean } = {},
): Record<string, string> {
  const c = container(deployment);
  const env: Record<string, string> = {};
  for (const source of c.envFrom ?? []) {
    const name = source.configMapRef?.name;
    expect(name, `${deployment.metadata.name}: envFrom a ConfigMap of the base`).toBeDefined();
    const data = configMaps.get(name!);
    expect(data, `ConfigMap ${name}`).toBeDefined();
    Object.assign(env, data);
  }
  for (const entry of c.env ?? []) {
    const secret = entry.valueFrom?.secretKeyRef;
    if (secret) {
      expect(secret.name, entry.name).toBe('dzpay-secrets');
      expect(secretSamples[secret.key], `sample for ${secret.key}`).toBeDefined();
      if (secret.optional && options.optionalSecrets === false) continue;
      env[entry.name] = secretSamples[secret.key]!;
    } else {
      expect(entry.value, entry.name).toBeTypeOf('string');
      env[entry.name] = entry.value!;
    }
  }
  return env;
}

/** Checks a Deployment meets the namespace's restricted Pod Security level, with limits. */
function expectRestricted(deployment: K8sObject): void {
  const name = deployment.metadata.name;
  const pod = deployment.spec!.template!.spec;
  const c = container(deployment);
  expect(c.securityContext?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot, name).toBe(true);
  expect(c.securityContext?.readOnlyRootFilesystem, name).toBe(true);
  expect(c.securityContext?.allowPrivilegeEscalation, name).toBe(false);
  expect(c.securityContext?.capabilities?.drop, name).toContain('ALL');
  expect(c.resources?.requests?.cpu, name).toBeDefined();
  expect(c.resources?.requests?.memory, name).toBeDefined();
  expect(c.resources?.limits?.cpu, name).toBeDefined();
  expect(c.resources?.limits?.memory, name).toBeDefined();
}

/**
 * Checks that secrets reach containers only through secretKeyRef: no env entry or
 * ConfigMap holds a dzpay-secrets key as a literal value, whatever its name.
 */
function expectNoLiteralSecrets(objects: K8sObject[]): void {
  for (const object of objects) {
    for (const c of object.spec?.template?.spec.containers ?? []) {
      for (const entry of c.env ?? []) {
        if (!(entry.name in secretSamples) && !credentialPattern.test(entry.name)) continue;
        expect(entry.value, `${object.metadata.name}: ${entry.name} in plain text`).toBeUndefined();
        expect(entry.valueFrom?.secretKeyRef?.name, `${object.metadata.name}: ${entry.name}`).toBe(
          'dzpay-secrets',
        );
      }
    }
    if (object.kind === 'ConfigMap') {
      for (const key of Object.keys(object.data ?? {})) {
        expect(secretSamples, `ConfigMap ${object.metadata.name}: ${key}`).not.toHaveProperty(key);
      }
    }
  }
}

/** The Service whose selector picks the Deployment's pods, checked against the selector. */
function serviceFor(deployment: K8sObject, services: K8sObject[]): K8sObject {
  const name = deployment.metadata.name;
  const podLabels = deployment.spec!.template!.metadata.labels;
  const matchLabels = deployment.spec!.selector!.matchLabels as Record<string, string>;
  expect(Object.keys(matchLabels), `${name}: selector`).not.toHaveLength(0);
  for (const [key, value] of Object.entries(matchLabels)) {
    expect(podLabels[key], `${name}: selector ${key}`).toBe(value);
  }
  const service = services.find((s) =>
    Object.entries(s.spec!.selector ?? {}).every(([key, value]) => podLabels[key] === value),
  );
  expect(service, `${name}: Service`).toBeDefined();
  return service!;
}

/** Checks that a kustomization lists every YAML file of its directory, and that they exist. */
function expectListsItsFiles(k: KustomizeDir): void {
  expect(k.kustomization, 'kustomization.yaml').toBeDefined();
  const resources = k.kustomization!.resources ?? [];
  for (const resource of [...resources, ...k.patchFiles]) {
    const url = new URL(resource, k.dir);
    expect(existsSync(url), resource).toBe(true);
    if (statSync(url).isDirectory()) {
      expect(readdirSync(url).some((file) => /^kustomization\.ya?ml$/.test(file))).toBe(true);
    }
  }
  const unlisted = k.files.filter(
    (file) =>
      file !== k.kustomizationFile && !resources.includes(file) && !k.patchFiles.includes(file),
  );
  expect(unlisted, 'YAML files that kustomize would silently skip').toEqual([]);
}

const base = readKustomizeDir(baseDir);
const baseDeployments = ofKind(base.objects, 'Deployment');
const baseConfigMaps = new Map(
  ofKind(base.objects, 'ConfigMap').map((cm) => [cm.metadata.name, cm.data ?? {}]),
);

describe('deploy/base', () => {
  const { kustomization, objects } = base;
  const deployments = baseDeployments;
  const configMaps = baseConfigMaps;
  const environment = (deployment: K8sObject, options?: { optionalSecrets?: boolean }) =>
    environmentOf(deployment, configMaps, options);

  it('lists exactly the files of the base', () => {
    expectListsItsFiles(base);
  });

  it('puts everything in the dzpay namespace, labelled part of dzpay', () => {
    expect(kustomization!.namespace).toBe('dzpay');
    expect(ofKind(objects, 'Namespace').map((ns) => ns.metadata.name)).toEqual(['dzpay']);
    expect(labelsOf(kustomization!)['app.kubernetes.io/part-of']).toBe('dzpay');
  });

  it('names the images through kustomize', () => {
    const images = (kustomization!.images ?? []).map((image) => image.name);
    expect(images).toEqual(
      expect.arrayContaining([
        'dzpay/gateway',
        'dzpay/qr-config',
        'dzpay/payments',
        'dzpay/status',
        'dzpay/webhook-dispatcher',
      ]),
    );
    for (const deployment of deployments) {
      expect(images, deployment.metadata.name).toContain(container(deployment).image);
    }
  });

  it('never deploys the card network sandbox', () => {
    const images = (kustomization!.images ?? []).map((image) => image.name);
    expect(images).not.toContain(`dzpay/${sandbox}`);
    for (const resource of kustomization!.resources ?? []) {
      expect(resource, 'base resources').not.toMatch(/sandbox|overlays/);
    }
    for (const object of objects) {
      expect(object.metadata.name, `${object.kind} in the base`).not.toContain('sandbox');
    }
    for (const deployment of deployments) {
      expect(container(deployment).image).not.toContain('sandbox');
      for (const value of Object.values(environment(deployment))) {
        expect(value, `${deployment.metadata.name} points at the sandbox`).not.toContain(sandbox);
      }
    }
  });

  it('commits no Secret, only references to dzpay-secrets documented in deploy/README.md', () => {
    expect(ofKind(objects, 'Secret')).toEqual([]);
    const readme = readText(new URL('deploy/README.md', root));
    expect(readme).toContain('dzpay-secrets');
    const keys = deployments.flatMap((d) =>
      (container(d).env ?? []).flatMap((e) => e.valueFrom?.secretKeyRef?.key ?? []),
    );
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(readme, key).toContain(`\`${key}\``);
    for (const key of Object.keys(secretSamples)) {
      expect(configMaps.get('dzpay-config'), `${key} is a secret`).not.toHaveProperty(key);
    }
  });

  it('reads the live card network credentials from dzpay-secrets, optionally', () => {
    const payments = deployments.find((d) => d.metadata.name === 'payments');
    expect(payments, 'payments Deployment').toBeDefined();
    const env = container(payments!).env ?? [];
    for (const name of ['CARDNET_LIVE_USERNAME', 'CARDNET_LIVE_PASSWORD']) {
      const ref = env.find((entry) => entry.name === name)?.valueFrom?.secretKeyRef;
      expect(ref, `${name} from a Secret`).toBeDefined();
      expect(ref!.name).toBe('dzpay-secrets');
      expect(ref!.key).toBe(name);
      expect(ref!.optional, `${name}: a test-only deployment starts without it`).toBe(true);
    }
    for (const deployment of deployments) {
      for (const entry of container(deployment).env ?? []) {
        if (!credentialPattern.test(entry.name)) continue;
        expect(entry.valueFrom?.secretKeyRef, `${entry.name} in plain text`).toBeDefined();
      }
    }
    for (const [name, data] of configMaps) {
      for (const key of Object.keys(data)) {
        expect(key, `ConfigMap ${name} holds a credential`).not.toMatch(credentialPattern);
      }
    }
    // Without the optional keys, payments still starts: test keys only.
    const testOnly = PaymentsEnv.parse(environment(payments!, { optionalSecrets: false }));
    expect(testOnly.CARDNET_LIVE_PASSWORD).toBe('');
  });

  it('reads REDIS_URL and SECRETS_KEY from dzpay-secrets, never literal values', () => {
    const entryOf = (name: string, variable: string) => {
      const deployment = deployments.find((d) => d.metadata.name === name);
      expect(deployment, `${name} Deployment`).toBeDefined();
      return (container(deployment!).env ?? []).find((entry) => entry.name === variable);
    };
    for (const deployment of deployments) {
      const name = deployment.metadata.name;
      const redis = entryOf(name, 'REDIS_URL');
      if (!('redis' in infra[name]!)) {
        expect(redis, `${name} does not use Redis`).toBeUndefined();
        continue;
      }
      const ref = redis?.valueFrom?.secretKeyRef;
      expect(ref, `${name}: REDIS_URL from a Secret`).toBeDefined();
      expect(ref).toEqual({ name: 'dzpay-secrets', key: 'REDIS_URL' });
      expect(environment(deployment).REDIS_PREFIX, `${name}: REDIS_PREFIX`).toBe(
        configMaps.get('dzpay-config')?.REDIS_PREFIX,
      );
    }
    expect(Object.keys(infra.payments!), 'payments uses Redis').toContain('redis');

    // The gateway seals partner secrets; webhook-dispatcher opens them to sign webhooks.
    const keyHolders = ['gateway', 'payments', 'webhook-dispatcher'];
    for (const name of keyHolders) {
      const key = entryOf(name, 'SECRETS_KEY');
      expect(key?.value, `${name}: SECRETS_KEY in plain text`).toBeUndefined();
      // Not optional: without the key, partner secrets can be neither set nor used.
      expect(key?.valueFrom?.secretKeyRef, `${name}: SECRETS_KEY`).toEqual({
        name: 'dzpay-secrets',
        key: 'SECRETS_KEY',
      });
      const deployment = deployments.find((d) => d.metadata.name === name)!;
      const config = parseEnv(
        runtimeSchemaOf(name),
        environment(deployment, { optionalSecrets: false }),
      );
      const parsed = 'SECRETS_KEY' in config ? config.SECRETS_KEY : undefined;
      expect(parsed, `${name}: SECRETS_KEY`).toBeDefined();
      expect(secretsKey(parsed!), name).toHaveLength(32);
    }
    for (const deployment of deployments) {
      if (keyHolders.includes(deployment.metadata.name)) continue;
      expect(
        entryOf(deployment.metadata.name, 'SECRETS_KEY'),
        'only the gateway and webhook-dispatcher',
      ).toBeUndefined();
    }

    expectNoLiteralSecrets(objects);
    // Nothing under deploy/ (manifests, README) holds a key: 32 bytes are 44 base64 characters.
    for (const [file, text] of deployFiles()) {
      expect(text, `${file}: a literal key`).not.toMatch(/[A-Za-z0-9+/]{43}=/);
    }
  });

  it('logs every Deployment in to NATS as its own user, its password from dzpay-secrets', () => {
    for (const deployment of deployments) {
      const name = deployment.metadata.name;
      expect(NATS_USERS, `${name}: a NATS user of the role table`).toContain(name as NatsUser);
      const env = container(deployment).env ?? [];
      const user = env.find((entry) => entry.name === 'NATS_USER');
      expect(user?.value, `${name}: NATS_USER`).toBe(name);
      const password = env.find((entry) => entry.name === 'NATS_PASSWORD');
      expect(password?.value, `${name}: NATS_PASSWORD in plain text`).toBeUndefined();
      // Not optional: a pod without its password would not start rather than connect anonymously.
      expect(password?.valueFrom?.secretKeyRef, `${name}: NATS_PASSWORD`).toEqual({
        name: 'dzpay-secrets',
        key: passwordVariable(name),
      });
    }
    const services = deployments.map((d) => d.metadata.name).sort();
    expect(NATS_USERS.filter((user) => user !== 'cli').sort()).toEqual(services);
    const readme = readText(new URL('deploy/README.md', root));
    for (const user of NATS_USERS) expect(readme, user).toContain(passwordVariable(user));
    expect(readme).toContain('nats-config');
  });

  it('never lets partner requests reach private targets (only pnpm start and the tests may)', () => {
    for (const [file, text] of deployFiles()) {
      expect(text.includes('PARTNER_ALLOW_PRIVATE_TARGETS'), file).toBe(false);
    }
    expect(readText(new URL('docker-compose.yml', root))).not.toContain(
      'PARTNER_ALLOW_PRIVATE_TARGETS',
    );
  });

  it('keeps deploy/nats/authorization.conf what the generator writes for NATS_PREFIX', () => {
    const prefix = configMaps.get('dzpay-config')?.NATS_PREFIX;
    expect(prefix).toBeDefined();
    // Regenerate: pnpm --filter @dzpay/stack -s nats-config --prefix dzpay > deploy/nats/authorization.conf
    expect(readText(new URL(natsAuthorizationFile, root))).toBe(generatedAuthorization(prefix!));
  });

  it('runs two replicas of the gateway, qr-config, payments, status, webhook-dispatcher and receipts', () => {
    const names = deployments.map((d) => d.metadata.name).sort();
    expect(names).toEqual([
      'gateway',
      'payments',
      'qr-config',
      'receipts',
      'status',
      'webhook-dispatcher',
    ]);
    for (const deployment of deployments) {
      expect(deployment.spec?.replicas, deployment.metadata.name).toBe(2);
      expect(container(deployment).image).toBe(`dzpay/${deployment.metadata.name}`);
    }
  });

  it('gives each Deployment a PodDisruptionBudget', () => {
    const budgets = ofKind(objects, 'PodDisruptionBudget');
    for (const deployment of deployments) {
      const podLabels = deployment.spec!.template!.metadata.labels;
      const budget = budgets.find((b) =>
        Object.entries(
          (b.spec?.selector?.matchLabels as Record<string, string> | undefined) ?? {},
        ).every(([key, value]) => podLabels[key] === value),
      );
      expect(budget, `${deployment.metadata.name}: PodDisruptionBudget`).toBeDefined();
    }
  });

  it('passes only variables the services read, and values they accept', () => {
    expect(configMaps.has('dzpay-config')).toBe(true);
    for (const deployment of deployments) {
      const name = deployment.metadata.name;
      const schema = schemaOf(name);
      const env = environment(deployment);
      for (const key of Object.keys(env)) expect(keysOf(schema), `${name}: ${key}`).toContain(key);
      for (const variable of Object.values(infra[name]!)) {
        expect(env[variable], `${name}: ${variable} would default to localhost`).toBeDefined();
      }
      parseEnv(schema, env);
      parseEnv(schema, environment(deployment, { optionalSecrets: false }));
    }
    const consumers = deployments.filter((d) =>
      container(d).envFrom?.some((source) => source.configMapRef?.name === 'dzpay-config'),
    );
    expect(consumers).toHaveLength(deployments.length);
  });

  it('keeps Postgres connections below max_connections, at the autoscalers ceilings, even while everything rolls out', () => {
    // The Cluster's max_connections (deploy/README.md), less superuser_reserved_connections (3).
    const readme = readText(new URL('deploy/README.md', root));
    const maxConnections = Number(/max_connections: '(\d+)'/.exec(readme)?.[1]);
    expect(maxConnections, 'max_connections in deploy/README.md').toBeGreaterThan(100);
    const autoscalers = ofKind(objects, 'HorizontalPodAutoscaler') as unknown as {
      spec: { scaleTargetRef: { name: string }; maxReplicas: number };
    }[];
    let total = 0;
    for (const deployment of deployments) {
      const name = deployment.metadata.name;
      const config = parseEnv(runtimeSchemaOf(name), environment(deployment));
      const surge = deployment.spec?.strategy?.rollingUpdate?.maxSurge;
      expect(typeof surge, `${name}: maxSurge as a number of pods`).toBe('number');
      const ceiling =
        autoscalers.find((hpa) => hpa.spec.scaleTargetRef.name === name)?.spec.maxReplicas ??
        deployment.spec!.replicas!;
      total += (ceiling + (surge as number)) * config.DATABASE_POOL_SIZE;
    }
    expect(total).toBeLessThan(maxConnections - 3);
  });

  it('sets one PUBLIC_BASE_URL placeholder on the gateway and payments, documented', () => {
    const readme = readText(new URL('deploy/README.md', root));
    expect(readme).toContain('`PUBLIC_BASE_URL`');
    const urls = ['gateway', 'payments'].map((name) => {
      const deployment = deployments.find((d) => d.metadata.name === name);
      expect(deployment, name).toBeDefined();
      const url = environment(deployment!).PUBLIC_BASE_URL;
      expect(url, `${name}: PUBLIC_BASE_URL would default to localhost`).toBeDefined();
      expect(new URL(url!).protocol, `${name}: PUBLIC_BASE_URL`).toBe('https:');
      return url!;
    });
    expect(urls[1], 'payments sends payers back to the gateway').toBe(urls[0]);
    expect(readme, 'the placeholder an overlay replaces').toContain(urls[0]);
  });

  it('probes liveness on /healthz and readiness on /readyz of the ops port', () => {
    for (const deployment of deployments) {
      const name = deployment.metadata.name;
      const c = container(deployment);
      const opsPort = parseEnv(runtimeSchemaOf(name), environment(deployment)).OPS_PORT;
      expect(portNumber(c, 'ops'), `${name}: container port named ops`).toBe(opsPort);
      const probes = { livenessProbe: '/healthz', readinessProbe: '/readyz' } as const;
      for (const [probe, path] of Object.entries(probes)) {
        const httpGet = c[probe as keyof typeof probes]?.httpGet;
        expect(httpGet?.path, `${name}: ${probe}`).toBe(path);
        expect(portNumber(c, httpGet?.port), `${name}: ${probe} port`).toBe(opsPort);
      }
      if (c.startupProbe) {
        expect(portNumber(c, c.startupProbe.httpGet?.port), `${name}: startupProbe`).toBe(opsPort);
      }
    }
  });

  it('runs as non-root on a read-only filesystem without capabilities, within limits', () => {
    for (const deployment of deployments) expectRestricted(deployment);
  });

  it('leaves a graceful shutdown the time it needs', () => {
    for (const deployment of deployments) {
      const name = deployment.metadata.name;
      const c = container(deployment);
      const grace = deployment.spec!.template!.spec.terminationGracePeriodSeconds;
      expect(grace, name).toBe(30);
      const preStop = c.lifecycle?.preStop;
      const pauseSeconds =
        preStop?.sleep?.seconds ??
        (preStop?.exec?.command[0] === 'sleep' ? Number(preStop.exec.command[1]) : 0);
      const shutdownMs = parseEnv(
        runtimeSchemaOf(name),
        environment(deployment),
      ).SHUTDOWN_TIMEOUT_MS;
      expect(pauseSeconds * 1_000 + shutdownMs, name).toBeLessThan(grace! * 1_000);
    }
  });

  it('selects each Deployment with a Service exposing its ops port, and the gateway on 80', () => {
    const services = ofKind(objects, 'Service');
    for (const deployment of deployments) {
      const name = deployment.metadata.name;
      const service = serviceFor(deployment, services);
      const c = container(deployment);
      const ops = service.spec!.ports?.find((port) => port.name === 'ops');
      expect(ops, `${name}: Service port named ops`).toBeDefined();
      expect(portNumber(c, ops!.targetPort ?? ops!.port)).toBe(portNumber(c, 'ops'));
      if (name === 'gateway') {
        const http = service.spec!.ports?.find((port) => port.name === 'http');
        expect(http?.port).toBe(80);
        const config = GatewayEnv.parse(environment(deployment));
        expect(portNumber(c, http?.targetPort ?? http?.port)).toBe(config.HTTP_PORT);
      } else {
        expect(service.spec!.ports, `${name}: only the ops port`).toHaveLength(1);
      }
    }
  });
});

describe('deploy/overlays/dev', () => {
  const dev = readKustomizeDir(devDir);
  const { kustomization, objects } = dev;
  const deployments = ofKind(objects, 'Deployment');
  const sandboxDeployment = deployments.find((d) => d.metadata.name === sandbox);
  const patches = dev.patchFiles.flatMap((file) => parseObjects(new URL(file, devDir), file));

  /** A base Deployment's environment after the overlay's strategic-merge patches. */
  function patchedEnvironment(name: string): Record<string, string> {
    const deployment = baseDeployments.find((d) => d.metadata.name === name);
    expect(deployment, `base Deployment ${name}`).toBeDefined();
    const env = environmentOf(deployment!, baseConfigMaps);
    for (const patch of patches.filter((p) => p.kind === 'Deployment')) {
      if (patch.metadata.name !== name) continue;
      for (const patched of patch.spec?.template?.spec.containers ?? []) {
        expect(patched.name, `patch of ${name}`).toBe(container(deployment!).name);
        for (const entry of patched.env ?? []) {
          expect(entry.value, `${name}: ${entry.name}`).toBeTypeOf('string');
          env[entry.name] = entry.value!;
        }
      }
    }
    return env;
  }

  it('builds on the base and lists exactly its files', () => {
    expectListsItsFiles(dev);
    expect(kustomization!.resources).toContain('../../base');
    for (const file of [`${sandbox}-deployment.yaml`, `${sandbox}-service.yaml`]) {
      expect(existsSync(new URL(file, devDir)), file).toBe(true);
      expect(kustomization!.resources, file).toContain(file);
    }
  });

  it("adds only the sandbox (and payments' way to it), in the dzpay namespace, labelled part of dzpay", () => {
    expect(kustomization!.namespace).toBe('dzpay');
    expect(labelsOf(kustomization!)['app.kubernetes.io/part-of']).toBe('dzpay');
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      `Deployment/${sandbox}`,
      `NetworkPolicy/${sandbox}-from-payments`,
      `Service/${sandbox}`,
    ]);
    expect(ofKind(objects, 'Secret')).toEqual([]);
    expectNoLiteralSecrets([...objects, ...patches]);
  });

  it('names the sandbox image through kustomize', () => {
    const images = (kustomization!.images ?? []).map((image) => image.name);
    expect(images).toContain(`dzpay/${sandbox}`);
    expect(container(sandboxDeployment!).image).toBe(`dzpay/${sandbox}`);
  });

  it('runs one sandbox, with only the variables it reads, probed on /healthz', () => {
    expect(sandboxDeployment, 'sandbox Deployment').toBeDefined();
    expect(sandboxDeployment!.spec?.replicas, 'orders are in memory').toBe(1);
    const c = container(sandboxDeployment!);
    expect(c.envFrom ?? [], 'no shared ConfigMap: the sandbox reads none of it').toEqual([]);
    const env = environmentOf(sandboxDeployment!, new Map());
    for (const key of Object.keys(env)) expect(keysOf(SandboxEnv), key).toContain(key);
    const config = parseEnv(SandboxEnv, env);
    expect(config.SANDBOX_PUBLIC_URL, 'SANDBOX_PUBLIC_URL').toBeDefined();
    expect(portNumber(c, 'http'), 'container port named http').toBe(config.SANDBOX_PORT);
    for (const probe of ['livenessProbe', 'readinessProbe'] as const) {
      expect(c[probe]?.httpGet?.path, probe).toBe('/healthz');
      expect(portNumber(c, c[probe]?.httpGet?.port), probe).toBe(config.SANDBOX_PORT);
    }
    expectRestricted(sandboxDeployment!);
    expect(sandboxDeployment!.spec!.template!.spec.terminationGracePeriodSeconds).toBe(30);
  });

  it('points payments test keys at the sandbox Service and sets the public URLs', () => {
    const service = serviceFor(sandboxDeployment!, ofKind(objects, 'Service'));
    expect(service.metadata.name).toBe(sandbox);
    const c = container(sandboxDeployment!);
    const http = service.spec!.ports?.find((port) => port.name === 'http');
    expect(http, 'Service port named http').toBeDefined();
    expect(portNumber(c, http!.targetPort ?? http!.port)).toBe(portNumber(c, 'http'));

    for (const patch of patches) {
      expect(patch.kind, patch.metadata.name).toBe('Deployment');
      const env = patchedEnvironment(patch.metadata.name);
      const schema = schemaOf(patch.metadata.name);
      for (const key of Object.keys(env)) {
        expect(keysOf(schema), `${patch.metadata.name}: ${key}`).toContain(key);
      }
      parseEnv(schema, env);
    }

    const payments = PaymentsEnv.parse(patchedEnvironment('payments'));
    const testUrl = new URL(payments.CARDNET_TEST_URL);
    const [host, namespace] = testUrl.hostname.split('.');
    expect(host, 'CARDNET_TEST_URL host').toBe(service.metadata.name);
    if (namespace !== undefined) expect(namespace).toBe(kustomization!.namespace);
    expect(Number(testUrl.port || 80), 'CARDNET_TEST_URL port').toBe(http!.port);
    const sandboxConfig = SandboxEnv.parse(environmentOf(sandboxDeployment!, new Map()));
    expect(payments.CARDNET_TEST_USERNAME).toBe(sandboxConfig.SANDBOX_USERNAME);
    expect(payments.CARDNET_TEST_PASSWORD).toBe(sandboxConfig.SANDBOX_PASSWORD);

    const gateway = GatewayEnv.parse(patchedEnvironment('gateway'));
    const placeholder = environmentOf(
      baseDeployments.find((d) => d.metadata.name === 'gateway')!,
      baseConfigMaps,
    ).PUBLIC_BASE_URL;
    expect(gateway.PUBLIC_BASE_URL, 'the base placeholder is replaced').not.toBe(placeholder);
    expect(payments.PUBLIC_BASE_URL).toBe(gateway.PUBLIC_BASE_URL);
  });
});
