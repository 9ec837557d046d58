import { secretsKey } from '@dzpay/platform';
import { describe, expect, it } from 'vitest';
import { PaymentsEnv } from '../../services/payments/src/config.ts';
import { expectNoLiteralSecrets } from './support/checks.ts';
import {
  base,
  baseConfigMaps,
  baseDeployments,
  baseEnvironment,
  container,
  named,
  ofKind,
} from './support/kustomize.ts';
import { deployFiles, deployReadme } from './support/repository.ts';
import {
  credentialPattern,
  infra,
  runtimeConfigOf,
  SECRETS_KEY_HOLDERS,
  secretSamples,
} from './support/service-schemas.ts';

// Credentials reach the pods from the dzpay-secrets Secret, which is never committed, and
// nothing under deploy/ holds one.

const entryOf = (name: string, variable: string) =>
  (container(named(base.objects, 'Deployment', name)).env ?? []).find(
    (entry) => entry.name === variable,
  );

describe('deploy/base: secrets', () => {
  it('commits no Secret, only references to dzpay-secrets documented in deploy/README.md', () => {
    expect(ofKind(base.objects, 'Secret')).toEqual([]);
    const readme = deployReadme();
    expect(readme).toContain('dzpay-secrets');
    const keys = [...baseDeployments, ...ofKind(base.objects, 'Job')].flatMap((d) =>
      (container(d).env ?? []).flatMap((e) => e.valueFrom?.secretKeyRef?.key ?? []),
    );
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(readme, key).toContain(`\`${key}\``);
    for (const key of Object.keys(secretSamples)) {
      expect(baseConfigMaps.get('dzpay-config'), `${key} is a secret`).not.toHaveProperty(key);
    }
  });

  it('reads the live card network credentials from dzpay-secrets, optionally', () => {
    for (const name of ['CARDNET_LIVE_USERNAME', 'CARDNET_LIVE_PASSWORD']) {
      const ref = entryOf('payments', name)?.valueFrom?.secretKeyRef;
      expect(ref, `${name} from a Secret`).toBeDefined();
      expect(ref!.name).toBe('dzpay-secrets');
      expect(ref!.key).toBe(name);
      expect(ref!.optional, `${name}: a test-only deployment starts without it`).toBe(true);
    }
    for (const deployment of baseDeployments) {
      for (const entry of container(deployment).env ?? []) {
        if (!credentialPattern.test(entry.name)) continue;
        expect(entry.valueFrom?.secretKeyRef, `${entry.name} in plain text`).toBeDefined();
      }
    }
    for (const [name, data] of baseConfigMaps) {
      for (const key of Object.keys(data)) {
        expect(key, `ConfigMap ${name} holds a credential`).not.toMatch(credentialPattern);
      }
    }
    // Without the optional keys, payments still starts: test keys only.
    const payments = named(base.objects, 'Deployment', 'payments');
    const testOnly = PaymentsEnv.parse(baseEnvironment(payments, { optionalSecrets: false }));
    expect(testOnly.CARDNET_LIVE_PASSWORD).toBe('');
  });

  it('reads REDIS_URL from dzpay-secrets, in the services that use Redis only', () => {
    for (const deployment of baseDeployments) {
      const name = deployment.metadata.name;
      const redis = entryOf(name, 'REDIS_URL');
      if (!('redis' in infra[name]!)) {
        expect(redis, `${name} does not use Redis`).toBeUndefined();
        continue;
      }
      expect(redis?.valueFrom?.secretKeyRef, `${name}: REDIS_URL`).toEqual({
        name: 'dzpay-secrets',
        key: 'REDIS_URL',
      });
      expect(baseEnvironment(deployment).REDIS_PREFIX, `${name}: REDIS_PREFIX`).toBe(
        baseConfigMaps.get('dzpay-config')?.REDIS_PREFIX,
      );
    }
    expect(Object.keys(infra.payments!), 'payments uses Redis').toContain('redis');
  });

  it('reads SECRETS_KEY from dzpay-secrets where secrets are sealed or opened, never a literal key', () => {
    for (const name of SECRETS_KEY_HOLDERS) {
      const key = entryOf(name, 'SECRETS_KEY');
      expect(key?.value, `${name}: SECRETS_KEY in plain text`).toBeUndefined();
      // Not optional: without the key, secrets can be neither made nor used.
      expect(key?.valueFrom?.secretKeyRef, `${name}: SECRETS_KEY`).toEqual({
        name: 'dzpay-secrets',
        key: 'SECRETS_KEY',
      });
      const deployment = named(base.objects, 'Deployment', name);
      const env = baseEnvironment(deployment, { optionalSecrets: false });
      const parsed = runtimeConfigOf(name, env).SECRETS_KEY;
      expect(parsed, `${name}: SECRETS_KEY`).toBeDefined();
      expect(secretsKey(parsed!), name).toHaveLength(32);
    }
    for (const deployment of baseDeployments) {
      if (SECRETS_KEY_HOLDERS.includes(deployment.metadata.name)) continue;
      expect(entryOf(deployment.metadata.name, 'SECRETS_KEY'), 'only its holders').toBeUndefined();
    }

    expectNoLiteralSecrets(base.objects);
    // Nothing under deploy/ (manifests, README) holds a key: 32 bytes are 44 base64 characters.
    for (const [file, text] of deployFiles()) {
      expect(text, `${file}: a literal key`).not.toMatch(/[A-Za-z0-9+/]{43}=/);
    }
  });

  it('never lets partner requests reach private targets (only pnpm start and the tests may)', () => {
    for (const [file, text] of deployFiles()) {
      expect(text.includes('PARTNER_ALLOW_PRIVATE_TARGETS'), file).toBe(false);
    }
  });
});
