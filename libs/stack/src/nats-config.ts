// Prints the NATS server configuration of a deployment, generated from the subject
// catalog (docs/nats-security.md, deploy/README.md):
//
//   pnpm --filter @dzpay/stack nats-config --prefix dzpay [--format conf|helm]
//     [--tls-cert FILE --tls-key FILE [--tls-ca FILE]] [--admin]
//     [--status-consumer NAME] [--webhook-consumer NAME] [--secret NAME]
//   pnpm --filter @dzpay/stack nats-config --format cluster --out DIR
//
// `cluster` writes deploy/nats/cluster/'s files into DIR: a node configuration per server
// of the one-machine cluster (LOCAL_CLUSTER) and their users, the `admin` user included.
//
// `conf` (the default) is nats-server configuration text: the `authorization` block, each
// password read by the server from NATS_<USER>_PASSWORD in its environment, and a `tls`
// block when given the files. `helm` is the same users as values of the nats Helm chart.
// No password is ever printed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { clusterFiles, LOCAL_CLUSTER } from './nats-cluster-config.ts';
import {
  authorizationBlock,
  helmValues,
  passwordVariable,
  tlsBlock,
  type DurableNames,
} from './nats-permissions.ts';

const { values } = parseArgs({
  options: {
    prefix: { type: 'string', default: 'dzpay' },
    format: { type: 'string', default: 'conf' },
    'tls-cert': { type: 'string' },
    'tls-key': { type: 'string' },
    'tls-ca': { type: 'string' },
    admin: { type: 'boolean', default: false },
    'status-consumer': { type: 'string' },
    'webhook-consumer': { type: 'string' },
    secret: { type: 'string', default: 'dzpay-nats-users' },
    out: { type: 'string' },
  },
  strict: true,
});

if (!/^[A-Za-z0-9_-]+$/.test(values.prefix)) {
  throw new Error('--prefix: letters, digits, _ and - only (NATS_PREFIX)');
}
const durables: DurableNames = {
  ...(values['status-consumer'] ? { statusConsumer: values['status-consumer'] } : {}),
  ...(values['webhook-consumer'] ? { webhookConsumer: values['webhook-consumer'] } : {}),
};

if (values.format === 'helm') {
  process.stdout.write(
    helmValues({ prefix: values.prefix, secretName: values.secret, durables, admin: values.admin }),
  );
} else if (values.format === 'conf') {
  const [cert, key, ca] = [values['tls-cert'], values['tls-key'], values['tls-ca']];
  if ((cert === undefined) !== (key === undefined)) {
    throw new Error('--tls-cert and --tls-key go together');
  }
  if (cert !== undefined && key !== undefined) {
    process.stdout.write(tlsBlock({ certFile: cert, keyFile: key, ...(ca ? { caFile: ca } : {}) }));
  }
  process.stdout.write(
    authorizationBlock({
      prefix: values.prefix,
      password: (user) => ({ env: passwordVariable(user) }),
      durables,
      ...(values.admin
        ? { admin: { user: 'admin', password: { env: passwordVariable('admin') } } }
        : {}),
    }),
  );
} else if (values.format === 'cluster') {
  if (!values.out) throw new Error('--format cluster writes files: --out DIR');
  mkdirSync(values.out, { recursive: true });
  const layout = { ...LOCAL_CLUSTER, prefix: values.prefix, durables };
  for (const [name, text] of clusterFiles(layout)) writeFileSync(join(values.out, name), text);
} else {
  throw new Error('--format: conf, helm or cluster');
}
