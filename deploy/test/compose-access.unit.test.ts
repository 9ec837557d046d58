import { secretsKey } from '@dzpay/platform';
import { passwordVariable } from '@dzpay/stack/nats-permissions';
import { describe, expect, it } from 'vitest';
import { PaymentsEnv } from '../../services/payments/src/config.ts';
import { SandboxEnv } from '../../services/cardnet-sandbox/src/config.ts';
import {
  command,
  commentsAbove,
  compose,
  composeText,
  environment,
  healthcheck,
  publishedPort,
  service,
} from './support/compose.ts';
import { deployFiles, readText } from './support/repository.ts';
import {
  runtimeConfigOf,
  runtimeSchemas,
  SANDBOX,
  SECRETS_KEY_HOLDERS,
} from './support/service-schemas.ts';

// docker-compose.yml: who reaches what. The secrets it holds are public development
// values, each service logs in to NATS as its own user, and one published port routes
// as the Kubernetes Ingress does.

const runtimeApps = Object.keys(runtimeSchemas);
const natsAuthorizationFile = 'deploy/nats/authorization.conf';

/** The routes of the ingress' nginx configuration: location to the upstream it proxies. */
function ingressRoutes(): { listen: number; routes: Map<string, string>; text: string } {
  const mount = (service('ingress').configs ?? []).find(
    (c): c is { source: string; target: string } => typeof c === 'object',
  );
  expect(mount?.target, 'replaces the default server').toBe('/etc/nginx/conf.d/default.conf');
  const text = compose.configs?.[mount!.source]?.content ?? '';
  const listen = Number(/^\s*listen (\d+);/m.exec(text)?.[1]);
  const routes = new Map<string, string>();
  for (const [, exact, path, body] of text.matchAll(/location\s+(=\s+)?(\S+)\s*\{([^}]*)\}/g)) {
    const upstream = /proxy_pass\s+([^;]+);/.exec(body!)?.[1] ?? 'itself';
    routes.set(`${exact ? '= ' : ''}${path}`, upstream);
  }
  return { listen, routes, text };
}

describe('docker-compose.yml: secrets, users and ports', () => {
  it('gives the services that seal or open secrets one development SECRETS_KEY, for local development only', () => {
    const key = environment('gateway').SECRETS_KEY;
    expect(key, 'gateway: SECRETS_KEY').toBeDefined();
    expect(secretsKey(key!)).toHaveLength(32);
    // Each opens what another sealed: the same key everywhere.
    for (const holder of SECRETS_KEY_HOLDERS) {
      expect(environment(holder).SECRETS_KEY, `${holder}: SECRETS_KEY`).toBe(key);
    }
    for (const name of Object.keys(compose.services)) {
      if (SECRETS_KEY_HOLDERS.includes(name)) continue;
      expect(environment(name), `${name}: SECRETS_KEY`).not.toHaveProperty('SECRETS_KEY');
    }
    const comments = commentsAbove(/^\s*SECRETS_KEY:/);
    expect(comments, 'SECRETS_KEY lines').toHaveLength(SECRETS_KEY_HOLDERS.length);
    for (const comment of comments) {
      expect(comment, 'comment above SECRETS_KEY').toMatch(/local\s.*development only/);
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
    // Every password the configuration reads is set on the nats service.
    for (const [, variable] of readText(natsAuthorizationFile).matchAll(/password: \$(\w+)/g)) {
      expect(nats[variable!], `nats: ${variable}`).toBeDefined();
    }
    for (const name of runtimeApps) {
      const env = environment(name);
      expect(env.NATS_USER, `${name}: NATS_USER`).toBe(name);
      expect(env.NATS_PASSWORD, `${name}: NATS_PASSWORD`).toBe(nats[passwordVariable(name)]);
      expect(env.NATS_PREFIX, `${name}: the prefix the users were generated for`).toBe('dzpay');
    }
    const lines = composeText.split('\n');
    const at = lines.findIndex((line) => /^\s*NATS_GATEWAY_PASSWORD:/.test(line));
    expect(lines.slice(at - 3, at).join(' '), 'comment above the passwords').toMatch(
      /local\s.*development only/,
    );
  });

  it('publishes only the ingress, the sandbox, the mail catcher UI and the trace viewer', () => {
    const published = Object.keys(compose.services).filter(
      (name) => (service(name).ports ?? []).length > 0,
    );
    expect(published.sort()).toEqual(['ingress', 'mailpit', 'otel-lgtm', SANDBOX].sort());
  });

  it('routes as the Kubernetes Ingress: /dashboard to the dashboard, the rest to the gateway', () => {
    const { listen, routes, text } = ingressRoutes();
    const port = (name: string) => runtimeConfigOf(name, environment(name)).HTTP_PORT;
    const dashboard = `http://dashboard:${port('dashboard')}`;
    expect(Object.fromEntries(routes)).toEqual({
      '= /dashboard': dashboard,
      '/dashboard/': dashboard,
      '/': `http://gateway:${port('gateway')}`,
      '= /ingress-healthz': 'itself',
    });
    expect(healthcheck('ingress')).toContain(`127.0.0.1:${listen}/ingress-healthz`);
    // compose reads $name as its own variable: nginx' variables are written $$name.
    expect(text).toContain('$proxy_add_x_forwarded_for');
    expect(composeText).not.toMatch(/[^$]\$(?!\$)[a-z_]+;/);
    // One proxy in front of each, as the ingress controller in Kubernetes.
    for (const name of ['gateway', 'dashboard']) {
      expect(environment(name).TRUST_PROXY_HOPS, name).toBe('1');
    }
  });

  it('points every public URL at the ingress published port', () => {
    const { listen } = ingressRoutes();
    const published = publishedPort('ingress', listen);
    expect(published, 'the ingress port published').toBeDefined();
    for (const name of ['gateway', 'payments', 'dashboard']) {
      expect(environment(name).PUBLIC_BASE_URL, `${name}: PUBLIC_BASE_URL`).toBeDefined();
      const url = new URL(runtimeConfigOf(name, environment(name)).PUBLIC_BASE_URL!);
      expect(url.hostname, `${name}: PUBLIC_BASE_URL`).toBe('localhost');
      expect(Number(url.port), `${name}: PUBLIC_BASE_URL`).toBe(published);
    }
  });

  it('points payments test keys at the sandbox, which serves its card form on a published port', () => {
    const sandboxConfig = SandboxEnv.parse(environment(SANDBOX));
    const payments = PaymentsEnv.parse(environment('payments'));
    expect(environment('payments').CARDNET_TEST_URL, 'CARDNET_TEST_URL').toBeDefined();
    const testUrl = new URL(payments.CARDNET_TEST_URL);
    expect(testUrl.hostname).toBe(SANDBOX);
    expect(Number(testUrl.port)).toBe(sandboxConfig.SANDBOX_PORT);
    expect(payments.CARDNET_TEST_USERNAME).toBe(sandboxConfig.SANDBOX_USERNAME);
    expect(payments.CARDNET_TEST_PASSWORD).toBe(sandboxConfig.SANDBOX_PASSWORD);
    expect(payments.CARDNET_LIVE_URL, 'no live card network in compose').toBeUndefined();

    expect(healthcheck(SANDBOX)).toContain(`127.0.0.1:${sandboxConfig.SANDBOX_PORT}/healthz`);
    const published = publishedPort(SANDBOX, sandboxConfig.SANDBOX_PORT);
    expect(published, 'sandbox port published').toBeDefined();
    expect(sandboxConfig.SANDBOX_PUBLIC_URL, 'SANDBOX_PUBLIC_URL').toBeDefined();
    const publicUrl = new URL(sandboxConfig.SANDBOX_PUBLIC_URL!);
    expect(publicUrl.hostname).toBe('localhost');
    expect(Number(publicUrl.port)).toBe(published);
  });

  it('never lets partner requests reach private targets (only pnpm start and the tests may)', () => {
    expect(composeText).not.toContain('PARTNER_ALLOW_PRIVATE_TARGETS');
  });
});
