import { describe, expect, it } from 'vitest';
import {
  baseConfigMaps,
  baseDeployments,
  baseEnvironment,
  container,
  named,
  base,
} from './support/kustomize.ts';
import { deployReadme } from './support/repository.ts';
import { infra, keysOf, parseEnv, runtimeConfigOf, schemaOf } from './support/service-schemas.ts';

// Every variable a Deployment passes is one its service reads, with a value it accepts: a
// renamed variable fails here instead of silently falling back to a default.

describe('deploy/base: environment', () => {
  it('passes only variables the services read, and values they accept', () => {
    expect(baseConfigMaps.has('dzpay-config')).toBe(true);
    for (const deployment of baseDeployments) {
      const name = deployment.metadata.name;
      const schema = schemaOf(name);
      const env = baseEnvironment(deployment);
      for (const key of Object.keys(env)) expect(keysOf(schema), `${name}: ${key}`).toContain(key);
      for (const variable of Object.values(infra[name]!)) {
        expect(env[variable], `${name}: ${variable} would default to localhost`).toBeDefined();
      }
      parseEnv(schema, env);
      parseEnv(schema, baseEnvironment(deployment, { optionalSecrets: false }));
    }
    const consumers = baseDeployments.filter((d) =>
      container(d).envFrom?.some((source) => source.configMapRef?.name === 'dzpay-config'),
    );
    expect(consumers).toHaveLength(baseDeployments.length);
  });

  it('sets one PUBLIC_BASE_URL placeholder on the gateway, payments and the dashboard, documented', () => {
    const readme = deployReadme();
    expect(readme).toContain('`PUBLIC_BASE_URL`');
    const urls = ['gateway', 'payments', 'dashboard'].map((name) => {
      const env = baseEnvironment(named(base.objects, 'Deployment', name));
      expect(
        env.PUBLIC_BASE_URL,
        `${name}: PUBLIC_BASE_URL would default to localhost`,
      ).toBeDefined();
      const url = runtimeConfigOf(name, env).PUBLIC_BASE_URL!;
      expect(new URL(url).protocol, `${name}: PUBLIC_BASE_URL`).toBe('https:');
      return url;
    });
    // payments sends payers back to the gateway; the dashboard's QR codes lead there.
    expect(new Set(urls).size, 'one URL').toBe(1);
    expect(readme, 'the placeholder an overlay replaces').toContain(urls[0]);
  });
});
