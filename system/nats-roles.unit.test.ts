import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DurableConsumers, Rpc, Streams } from '@dzpay/contracts';
import { inboxPrefixOf, streamName } from '@dzpay/platform';
import { describe, expect, it } from 'vitest';
import { StatusEnv } from '../services/status/src/config.ts';
import { DispatcherEnv } from '../services/webhook-dispatcher/src/config.ts';
import {
  authorizationBlock,
  DEFAULT_STATUS_CONSUMER,
  DEFAULT_WEBHOOK_CONSUMER,
  helmValues,
  inboxOf,
  NATS_USERS,
  natsRoles,
  passwordVariable,
  permissionsOf,
  repliesTo,
  tlsBlock,
  type NatsUser,
  type RpcName,
} from '@dzpay/stack/nats-permissions';
import { SERVICES } from '@dzpay/stack';

const PREFIX = 'dzpay';
const roles = natsRoles();
const permissions = Object.fromEntries(
  NATS_USERS.map((user) => [
    user,
    permissionsOf(user, roles[user], PREFIX, repliesTo(roles, user)),
  ]),
) as Record<NatsUser, ReturnType<typeof permissionsOf>>;
const rpcNames = Object.keys(Rpc) as RpcName[];
const subjectOf = (name: RpcName) => `${PREFIX}.${Rpc[name].subject}`;

const root = fileURLToPath(new URL('../', import.meta.url));

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The folder each user's code lives in: a service's, or the admin CLI's. */
const folderOf = (user: NatsUser) => (user === 'cli' ? 'tools/admin-cli' : `services/${user}`);

/** The workspace libraries a package depends on (libs/<name>), whose code runs as its user. */
function librariesOf(folder: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  return Object.keys(manifest.dependencies ?? {})
    .filter((name) => name.startsWith('@dzpay/'))
    .map((name) => `libs/${name.slice('@dzpay/'.length)}`)
    .filter((lib) => statSync(join(root, lib), { throwIfNoEntry: false })?.isDirectory());
}

/**
 * What the code itself serves and calls: the `Rpc.x` each serveRpc(, requestRpc( and
 * ask( (the dashboard's pages) call names, per user, in its own code and the libraries
 * it runs.
 */
function rpcUseInCode(): Record<NatsUser, { serves: Set<string>; calls: Set<string> }> {
  const found = Object.fromEntries(
    NATS_USERS.map((user) => [user, { serves: new Set<string>(), calls: new Set<string>() }]),
  ) as Record<NatsUser, { serves: Set<string>; calls: Set<string> }>;
  for (const user of NATS_USERS) {
    const own = sources(join(root, folderOf(user), 'src'));
    const ownText = own.map((file) => readFileSync(file, 'utf8')).join('\n');
    // A library file's calls are this user's when its own code uses what the file exports.
    const used = librariesOf(folderOf(user))
      .flatMap((lib) => sources(join(root, lib, 'src')))
      .filter((file) =>
        [...readFileSync(file, 'utf8').matchAll(/export (?:async )?function (\w+)/g)].some(
          ([, name]) => new RegExp(`\\b${name}\\b`).test(ownText),
        ),
      );
    for (const file of [...own, ...used]) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/\b(serveRpc|requestRpc|ask)\(([^;]*?)\bRpc\.(\w+)/gs)) {
        const [, verb, , name] = match;
        found[user][verb === 'serveRpc' ? 'serves' : 'calls'].add(name!);
      }
    }
  }
  return found;
}

describe('the NATS role table', () => {
  it('has one user per service and one for the admin CLI', () => {
    expect([...NATS_USERS].sort()).toEqual([...SERVICES, 'cli'].sort());
  });

  it('says what the code does: each role serves and calls exactly the subjects its service does', () => {
    const inCode = rpcUseInCode();
    for (const user of NATS_USERS) {
      expect([...roles[user].serves].sort(), `${user} serves`).toEqual(
        [...inCode[user].serves].sort(),
      );
      expect([...roles[user].calls].sort(), `${user} calls`).toEqual(
        [...inCode[user].calls].sort(),
      );
    }
  });

  it('gives every Rpc of the catalog exactly one server role, and lets each caller publish it', () => {
    for (const name of rpcNames) {
      const servers = NATS_USERS.filter((user) => roles[user].serves.includes(name));
      expect(servers, `${name}: server roles`).toHaveLength(1);
      expect(permissions[servers[0]!].subscribe, name).toContain(subjectOf(name));
      expect(permissions[servers[0]!].allowResponses, `${name}: its server replies`).toBe(true);
      const callers = NATS_USERS.filter((user) => roles[user].calls.includes(name));
      expect(callers.length, `${name}: nobody calls it`).toBeGreaterThan(0);
      for (const caller of callers)
        expect(permissions[caller].publish, name).toContain(subjectOf(name));
      // Nobody else may send it, nor listen to it.
      for (const user of NATS_USERS) {
        if (!callers.includes(user))
          expect(permissions[user].publish, `${user} → ${name}`).not.toContain(subjectOf(name));
        if (!servers.includes(user))
          expect(permissions[user].subscribe, `${user} ← ${name}`).not.toContain(subjectOf(name));
      }
    }
  });

  it('gives no role a full wildcard; each reads only its own inbox and answers only its callers’', () => {
    for (const user of NATS_USERS) {
      for (const subject of [...permissions[user].publish, ...permissions[user].subscribe]) {
        const tokens = subject.split('.');
        // A wildcard may only end a subject that names its stream, consumer or bucket.
        expect(tokens[0], `${user}: ${subject}`).not.toMatch(/^[*>]$/);
        expect(subject, `${user}`).not.toMatch(/^(\$JS|\$JS\.API|\$JS\.ACK|\$KV|_INBOX)\.[*>]$/);
        expect(tokens.slice(0, -1).join('.'), `${user}: ${subject}`).not.toMatch(/(^|\.)[*>]/);
      }
      const inboxes = permissions[user].subscribe.filter((s) => s.startsWith('_INBOX'));
      expect(inboxes, user).toEqual([`${inboxOf(user)}.>`]);
      // It answers into the inboxes of its callers, and of nobody else.
      const callers = NATS_USERS.filter((caller) =>
        roles[caller].calls.some((name) => roles[user].serves.includes(name)),
      );
      const answered = permissions[user].publish.filter((s) => s.startsWith('_INBOX'));
      expect(answered, user).toEqual(callers.map((caller) => `${inboxOf(caller)}.>`));
    }
    expect(repliesTo(roles, 'payments')).toEqual([
      'gateway',
      'status',
      'receipts',
      'dashboard',
      'cli',
    ]);
    expect(repliesTo(roles, 'qr-config')).toEqual(['gateway', 'dashboard', 'cli']);
    expect(repliesTo(roles, 'gateway')).toEqual([]);
    expect(permissions.receipts.publish).not.toContain(`${inboxOf('cli')}.>`);
  });

  it('keeps receipts from refunding and the gateway from reading PAYMENTS', () => {
    expect(permissions.receipts.publish).not.toContain(subjectOf('paymentsRefund'));
    const payments = streamName(PREFIX, Streams.payments.name);
    const touching = (user: NatsUser) =>
      [...permissions[user].publish, ...permissions[user].subscribe].filter(
        (s) => s.includes(payments) || s.startsWith(`${PREFIX}.payments.events`),
      );
    expect(touching('gateway')).toEqual([]);
    expect(touching('receipts')).toEqual([]);
    expect(touching('cli')).toEqual([]);
    // Only payments writes payment events.
    for (const user of NATS_USERS) {
      const writes = permissions[user].publish.includes(`${PREFIX}.payments.events.>`);
      expect(writes, user).toBe(user === 'payments');
    }
  });

  it('lets each reader create and read its own durable consumer only', () => {
    const payments = streamName(PREFIX, Streams.payments.name);
    const readers = {
      'qr-config': 'qr-config-single-use',
      status: 'status-projection',
      'webhook-dispatcher': 'webhook-dispatcher',
    } as const;
    for (const [user, durable] of Object.entries(readers) as [NatsUser, string][]) {
      const publish = permissions[user].publish;
      expect(publish).toContain(`$JS.API.CONSUMER.CREATE.${payments}.${durable}`);
      expect(publish).toContain(`$JS.API.CONSUMER.MSG.NEXT.${payments}.${durable}`);
      expect(publish).toContain(`$JS.ACK.${payments}.${durable}.>`);
      const others = publish.filter(
        (s) => s.includes(`${payments}.`) && !s.includes(`${payments}.${durable}`),
      );
      expect(others, `${user}: another consumer of PAYMENTS`).toEqual([]);
    }
    // A reader ensures the stream it reads (the start order of services does not matter).
    for (const user of NATS_USERS) {
      for (const { stream } of roles[user].consumes)
        expect(roles[user].ensures, `${user} ensures ${stream}`).toContain(stream);
      for (const stream of roles[user].publishes)
        expect(roles[user].ensures, `${user} ensures ${stream}`).toContain(stream);
    }
  });

  it('uses the names the services use: consumers, streams, inboxes', () => {
    // Every consumer a role reads is one of the catalog's, which the services read through.
    const named = ({ stream, durable }: { stream: string; durable: string }) =>
      `${stream}/${durable}`;
    expect(NATS_USERS.flatMap((user) => roles[user].consumes.map(named)).sort()).toEqual(
      Object.values(DurableConsumers).map(named).sort(),
    );
    expect(DEFAULT_STATUS_CONSUMER).toBe(StatusEnv.shape.STATUS_CONSUMER.parse(undefined));
    expect(DEFAULT_WEBHOOK_CONSUMER).toBe(DispatcherEnv.shape.WEBHOOK_CONSUMER.parse(undefined));
    expect(inboxOf('gateway')).toBe(inboxPrefixOf('gateway'));
    const odd = 'a.b c';
    const status = permissionsOf('status', roles.status, odd);
    expect(status.publish).toContain(
      `$JS.API.STREAM.INFO.${streamName(odd, Streams.payments.name)}`,
    );
    // A renamed consumer is granted, the old one no longer.
    const renamed = permissionsOf(
      'status',
      natsRoles({ statusConsumer: 'status-v2' }).status,
      PREFIX,
    );
    const payments = streamName(PREFIX, Streams.payments.name);
    expect(renamed.publish).toContain(`$JS.API.CONSUMER.CREATE.${payments}.status-v2`);
    expect(renamed.publish).toContain(
      `$JS.API.CONSUMER.CREATE.${streamName(PREFIX, Streams.webhooks.name)}.status-v2-webhooks`,
    );
    expect(renamed.publish).not.toContain(`$JS.API.CONSUMER.CREATE.${payments}.status-projection`);
  });
});

describe('the generated configuration', () => {
  it('reads production passwords from the server environment, and quotes subjects', () => {
    const block = authorizationBlock({
      prefix: PREFIX,
      password: (user) => ({ env: passwordVariable(user) }),
    });
    expect(block).toMatch(/^authorization \{$/m);
    for (const user of NATS_USERS) {
      expect(block).toContain(`user: "${user}"`);
      expect(block).toContain(`password: $${passwordVariable(user)}`);
    }
    expect(passwordVariable('webhook-dispatcher')).toBe('NATS_WEBHOOK_DISPATCHER_PASSWORD');
    // `$` inside quotes is literal to the server; unquoted it would be a variable.
    expect(block).toContain('"$JS.API.INFO"');
    expect(block).not.toMatch(/^\s*\$JS/m);
    expect(block).not.toContain('"admin"');
  });

  it('refuses a literal password the configuration could not hold safely', () => {
    const withPassword = (password: string) =>
      authorizationBlock({ prefix: PREFIX, password: () => password });
    expect(() => withPassword('short')).toThrow(/at least 16/);
    expect(() => withPassword('has"quote-and-more-chars')).toThrow();
    expect(withPassword('a'.repeat(24))).toContain(`password: "${'a'.repeat(24)}"`);
  });

  it('writes a TLS block that verifies clients when given their CA', () => {
    const tls = tlsBlock({ certFile: '/c/tls.crt', keyFile: '/c/tls.key', caFile: '/c/ca.crt' });
    expect(tls).toContain('cert_file: "/c/tls.crt"');
    expect(tls).toContain('verify: true');
    expect(tlsBlock({ certFile: '/c/tls.crt', keyFile: '/c/tls.key' })).not.toContain('verify');
  });

  it('writes the same users as values of the nats Helm chart, passwords from a Secret', () => {
    const values = JSON.parse(helmValues({ prefix: PREFIX, secretName: 'dzpay-nats-users' })) as {
      config: {
        merge: {
          authorization: {
            users: {
              user: string;
              password: string;
              permissions: { publish: { allow: string[] } };
            }[];
          };
        };
      };
      container: {
        env: Record<string, { valueFrom: { secretKeyRef: { name: string; key: string } } }>;
      };
    };
    const users = values.config.merge.authorization.users;
    expect(users.map((u) => u.user)).toEqual([...NATS_USERS]);
    for (const entry of users) {
      const variable = passwordVariable(entry.user);
      expect(entry.password).toBe(`<< $${variable} >>`);
      expect(values.container.env[variable]?.valueFrom.secretKeyRef).toEqual({
        name: 'dzpay-nats-users',
        key: variable,
      });
      expect(entry.permissions.publish.allow).toEqual(permissions[entry.user as NatsUser].publish);
    }
  });
});
