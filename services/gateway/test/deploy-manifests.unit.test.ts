import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import type { z } from 'zod';
import { QrConfigEnv } from '../../qr-config/src/config.ts';
import { GatewayEnv } from '../src/config.ts';

// No Docker engine or cluster runs the deployment files in CI, so this reads them and
// holds them to what the services actually accept: a renamed variable, a moved ops
// port or a lost probe fails here instead of in a rollout.

const root = new URL('../../../', import.meta.url);
const baseDir = new URL('deploy/base/', root);

type EnvSchema = typeof GatewayEnv | typeof QrConfigEnv;

/** The environment schema of each service that the deployment files run. */
const schemas: Record<string, EnvSchema> = { gateway: GatewayEnv, 'qr-config': QrConfigEnv };

/** The infrastructure each service connects to at start, and the variable naming it. */
const infra: Record<string, Record<string, string>> = {
  gateway: { nats: 'NATS_URL', postgres: 'DATABASE_URL', redis: 'REDIS_URL' },
  'qr-config': { nats: 'NATS_URL', postgres: 'DATABASE_URL' },
};

/** What a real dzpay-secrets would hold, to check that the whole environment parses. */
const secretSamples: Record<string, string> = {
  DATABASE_URL: 'postgresql://dzpay:secret@dzpay-db-rw.dzpay-infra:5432/dzpay',
  REDIS_URL: 'redis://:secret@redis-master.dzpay-infra.svc:6379',
};

function readText(url: URL): string {
  return readFileSync(url, 'utf8');
}

function schemaOf(service: string): EnvSchema {
  const schema = schemas[service];
  if (!schema) throw new Error(`no environment schema known for service ${service}`);
  return schema;
}

function keysOf(schema: EnvSchema): string[] {
  return Object.keys(schema.shape);
}

function parseEnv(schema: EnvSchema, env: Record<string, string>): z.infer<EnvSchema> {
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
    ports?: (string | number | { target?: number })[];
    volumes?: (string | { target?: string })[];
    stop_grace_period?: string;
  }
  const compose = parse(readText(new URL('docker-compose.yml', root))) as {
    services: Record<string, ComposeService>;
    volumes?: Record<string, unknown>;
  };
  const services = compose.services;
  const apps = Object.keys(schemas);

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

  it('runs NATS, Postgres, Redis, the gateway and qr-config', () => {
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining(['nats', 'postgres', 'redis', 'gateway', 'qr-config']),
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
      const dependsOn = service(name).depends_on;
      expect(Array.isArray(dependsOn), `${name}: depends_on with conditions`).toBe(false);
      for (const dependency of Object.keys(infra[name]!)) {
        expect(
          (dependsOn as Record<string, { condition?: string }>)[dependency]?.condition,
          `${name} on ${dependency}`,
        ).toBe('service_healthy');
      }
    }
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
    }
  });

  it('checks readiness on the ops port and outlasts a graceful shutdown', () => {
    for (const name of apps) {
      const config = parseEnv(schemaOf(name), environment(name));
      expect(healthcheck(name), name).toContain(`127.0.0.1:${config.OPS_PORT}/readyz`);
      const grace = durationMs(service(name).stop_grace_period ?? '10s');
      expect(grace, `${name}: stop_grace_period`).toBeGreaterThan(config.SHUTDOWN_TIMEOUT_MS);
    }
  });

  it('publishes the gateway HTTP port', () => {
    const config = GatewayEnv.parse(environment('gateway'));
    const targets = (service('gateway').ports ?? []).map((port) =>
      typeof port === 'object' ? port.target : Number(String(port).split(':').at(-1)),
    );
    expect(targets).toContain(config.HTTP_PORT);
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

describe('deploy/base', () => {
  interface Container {
    name: string;
    image: string;
    ports?: { name?: string; containerPort: number }[];
    env?: {
      name: string;
      value?: string;
      valueFrom?: { secretKeyRef?: { name: string; key: string } };
    }[];
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
    commonLabels?: Record<string, string>;
    labels?: { pairs: Record<string, string> }[];
    images?: { name: string }[];
  }

  const files = readdirSync(baseDir).filter((file) => /\.ya?ml$/.test(file));
  const kustomizationFile = files.find((file) => /^kustomization\.ya?ml$/.test(file));
  const kustomization = parse(readText(new URL(kustomizationFile ?? 'missing', baseDir))) as
    Kustomization | undefined;
  const objects = files
    .filter((file) => file !== kustomizationFile)
    .flatMap((file) =>
      parseAllDocuments(readText(new URL(file, baseDir))).map((doc) => {
        if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.join('; ')}`);
        return doc.toJS() as K8sObject;
      }),
    )
    .filter((object) => object !== null);
  const ofKind = (kind: string) => objects.filter((object) => object.kind === kind);
  const deployments = ofKind('Deployment');
  const configMaps = new Map(ofKind('ConfigMap').map((cm) => [cm.metadata.name, cm.data ?? {}]));

  function container(deployment: K8sObject): Container {
    const containers = deployment.spec?.template?.spec.containers ?? [];
    expect(containers, deployment.metadata.name).toHaveLength(1);
    return containers[0]!;
  }

  /** The environment a container starts with, secrets replaced by sample values. */
  function environment(deployment: K8sObject): Record<string, string> {
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
        env[entry.name] = secretSamples[secret.key]!;
      } else {
        expect(entry.value, entry.name).toBeTypeOf('string');
        env[entry.name] = entry.value!;
      }
    }
    return env;
  }

  function portNumber(c: Container, port: string | number | undefined): number | undefined {
    return typeof port === 'number'
      ? port
      : c.ports?.find((candidate) => candidate.name === port)?.containerPort;
  }

  it('lists exactly the files of the base', () => {
    expect(kustomization, 'kustomization.yaml').toBeDefined();
    const resources = kustomization!.resources ?? [];
    for (const resource of resources) {
      const url = new URL(resource, baseDir);
      expect(existsSync(url), resource).toBe(true);
      if (statSync(url).isDirectory()) {
        expect(readdirSync(url).some((file) => /^kustomization\.ya?ml$/.test(file))).toBe(true);
      }
    }
    const unlisted = files.filter(
      (file) => file !== kustomizationFile && !resources.includes(file),
    );
    expect(unlisted, 'YAML files that kustomize would silently skip').toEqual([]);
  });

  it('puts everything in the dzpay namespace, labelled part of dzpay', () => {
    expect(kustomization!.namespace).toBe('dzpay');
    expect(ofKind('Namespace').map((ns) => ns.metadata.name)).toEqual(['dzpay']);
    const labels: Record<string, string> = { ...kustomization!.commonLabels };
    for (const entry of kustomization!.labels ?? []) Object.assign(labels, entry.pairs);
    expect(labels['app.kubernetes.io/part-of']).toBe('dzpay');
  });

  it('names the images through kustomize', () => {
    const images = (kustomization!.images ?? []).map((image) => image.name);
    expect(images).toEqual(expect.arrayContaining(['dzpay/gateway', 'dzpay/qr-config']));
    for (const deployment of deployments) {
      expect(images, deployment.metadata.name).toContain(container(deployment).image);
    }
  });

  it('commits no Secret, only references to dzpay-secrets documented in deploy/README.md', () => {
    expect(ofKind('Secret')).toEqual([]);
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

  it('runs two replicas of the gateway and of qr-config', () => {
    const names = deployments.map((d) => d.metadata.name).sort();
    expect(names).toEqual(['gateway', 'qr-config']);
    for (const deployment of deployments) {
      expect(deployment.spec?.replicas, deployment.metadata.name).toBe(2);
      expect(container(deployment).image).toBe(`dzpay/${deployment.metadata.name}`);
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
    }
    const consumers = deployments.filter((d) =>
      container(d).envFrom?.some((source) => source.configMapRef?.name === 'dzpay-config'),
    );
    expect(consumers).toHaveLength(deployments.length);
  });

  it('probes liveness on /healthz and readiness on /readyz of the ops port', () => {
    for (const deployment of deployments) {
      const name = deployment.metadata.name;
      const c = container(deployment);
      const opsPort = parseEnv(schemaOf(name), environment(deployment)).OPS_PORT;
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
    for (const deployment of deployments) {
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
      const shutdownMs = parseEnv(schemaOf(name), environment(deployment)).SHUTDOWN_TIMEOUT_MS;
      expect(pauseSeconds * 1_000 + shutdownMs, name).toBeLessThan(grace! * 1_000);
    }
  });

  it('selects each Deployment with a Service exposing its ops port, and the gateway on 80', () => {
    const services = ofKind('Service');
    for (const deployment of deployments) {
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
      const c = container(deployment);
      const ops = service!.spec!.ports?.find((port) => port.name === 'ops');
      expect(ops, `${name}: Service port named ops`).toBeDefined();
      expect(portNumber(c, ops!.targetPort ?? ops!.port)).toBe(portNumber(c, 'ops'));
      if (name === 'gateway') {
        const http = service!.spec!.ports?.find((port) => port.name === 'http');
        expect(http?.port).toBe(80);
        const config = GatewayEnv.parse(environment(deployment));
        expect(portNumber(c, http?.targetPort ?? http?.port)).toBe(config.HTTP_PORT);
      }
    }
  });
});
