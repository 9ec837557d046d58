import {
  authorizationBlock,
  NATS_USERS,
  passwordVariable,
  type NatsUser,
} from '@dzpay/stack/nats-permissions';
import { describe, expect, it } from 'vitest';
import { baseConfigMaps, baseDeployments, container } from './support/kustomize.ts';
import { deployReadme, readText } from './support/repository.ts';

// Each Deployment logs in to NATS as its own user of the role table, and the servers'
// users are the generator's (libs/stack/src/nats-permissions.ts, docs/nats-security.md).

/** The users of the NATS servers, generated for NATS_PREFIX. */
const natsAuthorizationFile = 'deploy/nats/authorization.conf';

/** What the generator writes for production: every password read from the servers' environment. */
const generatedAuthorization = (prefix: string) =>
  authorizationBlock({ prefix, password: (user) => ({ env: passwordVariable(user) }) });

describe('deploy: NATS users', () => {
  it('logs every Deployment in to NATS as its own user, its password from dzpay-secrets', () => {
    for (const deployment of baseDeployments) {
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
    const services = baseDeployments.map((d) => d.metadata.name).sort();
    expect(NATS_USERS.filter((user) => user !== 'cli').sort()).toEqual(services);
  });

  it('documents every user password and the generator in deploy/README.md', () => {
    const readme = deployReadme();
    for (const user of NATS_USERS) expect(readme, user).toContain(passwordVariable(user));
    expect(passwordVariable('dashboard')).toBe('NATS_DASHBOARD_PASSWORD');
    expect(readme).toContain('nats-config');
  });

  it('keeps deploy/nats/authorization.conf what the generator writes for NATS_PREFIX', () => {
    const prefix = baseConfigMaps.get('dzpay-config')?.NATS_PREFIX;
    expect(prefix).toBeDefined();
    // Regenerate: pnpm --filter @dzpay/stack -s nats-config --prefix dzpay > deploy/nats/authorization.conf
    expect(readText(natsAuthorizationFile)).toBe(generatedAuthorization(prefix!));
  });
});
