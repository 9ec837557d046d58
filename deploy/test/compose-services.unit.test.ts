import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ReceiptsEnv } from '../../services/receipts/src/config.ts';
import {
  command,
  compose,
  dependency,
  durationMs,
  environment,
  healthcheck,
  publishedPort,
  service,
} from './support/compose.ts';
import { exists, fileUrl } from './support/repository.ts';
import {
  infra,
  keysOf,
  parseEnv,
  runtimeConfigOf,
  runtimeSchemas,
  SANDBOX,
  schemaOf,
  schemas,
} from './support/service-schemas.ts';

// No Docker engine runs docker-compose.yml in CI, so this reads it and holds it to what
// the services accept: a renamed variable or a lost dependency fails here, not on a
// developer's machine.

const services = compose.services;
const apps = Object.keys(schemas);
const runtimeApps = Object.keys(runtimeSchemas);

describe('docker-compose.yml: what it runs', () => {
  it('runs NATS, Postgres, Redis, a mail catcher, every dzpay service, the sandbox and an ingress', () => {
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining([
        'nats',
        'postgres',
        'redis',
        ...runtimeApps,
        'ingress',
        'mailpit',
        'otel-lgtm',
        SANDBOX,
      ]),
    );
    const runnable = readdirSync(fileUrl('services/')).filter((name) =>
      exists(`services/${name}/src/main.ts`),
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
      expect(exists(`services/${name}/src/main.ts`), name).toBe(true);
    }
  });

  it('starts the services only once their infrastructure is healthy', () => {
    for (const name of apps) {
      for (const on of Object.keys(infra[name]!)) {
        expect(dependency(name, on), `${name} on ${on}`).toBe('service_healthy');
      }
    }
    const after = [
      ['payments', SANDBOX],
      ['gateway', 'payments'],
      ['gateway', 'status'],
      ['gateway', 'receipts'],
      ['dashboard', 'payments'],
      ['receipts', 'mailpit'],
      ['ingress', 'gateway'],
      ['ingress', 'dashboard'],
    ];
    for (const [name, on] of after) {
      expect(dependency(name!, on!), `${name} on ${on}`).toBe('service_healthy');
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
      if (!('redis' in infra[name]!)) {
        expect(env, `${name} does not use Redis`).not.toHaveProperty('REDIS_URL');
        expect(env, `${name} does not use Redis`).not.toHaveProperty('REDIS_PREFIX');
      }
    }
    for (const name of ['payments', 'receipts', 'dashboard']) {
      expect(environment(name).REDIS_PREFIX, `${name}: REDIS_PREFIX`).toBe(
        environment('gateway').REDIS_PREFIX,
      );
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
      const endpoint = runtimeConfigOf(name, environment(name)).OTEL_EXPORTER_OTLP_ENDPOINT;
      expect(endpoint && new URL(endpoint).host, name).toBe('otel-lgtm:4318');
    }
    expect(publishedPort('otel-lgtm', 3000), 'Grafana').toBe(3000);
  });

  it('checks readiness on the ops port and outlasts a graceful shutdown', () => {
    for (const name of runtimeApps) {
      const config = runtimeConfigOf(name, environment(name));
      expect(healthcheck(name), name).toContain(`127.0.0.1:${config.OPS_PORT}/readyz`);
      const grace = durationMs(service(name).stop_grace_period ?? '10s');
      expect(grace, `${name}: stop_grace_period`).toBeGreaterThan(config.SHUTDOWN_TIMEOUT_MS);
    }
  });
});
