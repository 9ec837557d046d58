import { Buckets, DurableConsumers, Rpc, Streams, statusWebhooksDurable } from '@dzpay/contracts';

// Who may publish and subscribe where on NATS, derived from the subject catalog of
// libs/contracts (Rpc, Streams, Buckets) and a role table saying what each service does
// with it. The generator below turns a role into the allow lists of a nats-server
// `authorization` block: the configuration the tests, `pnpm start` and production run
// (docs/nats-security.md). Nothing here grants `>`: a role reaches only its own subjects.

/** One NATS user per dzpay service, and one for the admin CLI. */
export const NATS_USERS = [
  'gateway',
  'qr-config',
  'payments',
  'status',
  'webhook-dispatcher',
  'receipts',
  'dashboard',
  'cli',
] as const;
export type NatsUser = (typeof NATS_USERS)[number];

export type RpcName = keyof typeof Rpc;
export type StreamKey = keyof typeof Streams;
export type BucketKey = keyof typeof Buckets;

/** A durable pull consumer a role reads through (DurableConsumers in libs/contracts). */
export interface DurableConsumer {
  stream: StreamKey;
  /**
   * Its durable name: the role may create, inspect, read, delete and make again this
   * consumer only (made again: a new filter, or status replaying a stream it is behind).
   */
  durable: string;
}

/** What one user does on NATS; every subject below comes from the catalog. */
export interface NatsRole {
  /** Request/reply subjects it answers (in a queue group with its replicas). */
  serves: readonly RpcName[];
  /** Request/reply subjects it sends requests to. */
  calls: readonly RpcName[];
  /** Streams it publishes events to (its outbox relay). */
  publishes: readonly StreamKey[];
  /** Streams it creates or brings to the deployment's settings at start (ensureStream). */
  ensures: readonly StreamKey[];
  /** Durable consumers it reads. */
  consumes: readonly DurableConsumer[];
  /** KV buckets it creates, writes and lists. */
  kvWrites: readonly BucketKey[];
  /** KV buckets it reads entries of. */
  kvReads: readonly BucketKey[];
}

const none = {
  serves: [],
  calls: [],
  publishes: [],
  ensures: [],
  consumes: [],
  kvWrites: [],
  kvReads: [],
} as const satisfies NatsRole;

/** A merchant's payment links: payments serves them, the API and the dashboard call them. */
const MERCHANT_PAYMENT_LINKS = [
  'paymentLinksCreate',
  'paymentLinksList',
  'paymentLinksGet',
  'paymentLinksDeactivate',
] as const satisfies readonly RpcName[];

/** A merchant's balance, payouts and statements: served and called as the links are. */
const MERCHANT_BALANCE = [
  'balanceGet',
  'payoutsList',
  'statementGet',
] as const satisfies readonly RpcName[];

/** Durable names the services take from their environment (STATUS_CONSUMER, WEBHOOK_CONSUMER). */
export interface DurableNames {
  /** status' consumer of PAYMENTS; `-webhooks` appended, of WEBHOOKS. */
  statusConsumer?: string;
  /** webhook-dispatcher's consumer of PAYMENTS. */
  webhookConsumer?: string;
}

export const DEFAULT_STATUS_CONSUMER = DurableConsumers.statusPayments.durable;
export const DEFAULT_WEBHOOK_CONSUMER = DurableConsumers.dispatcherPayments.durable;

/**
 * The role table, read from the code of each service (who calls what, who reads which
 * stream). A renamed STATUS_CONSUMER or WEBHOOK_CONSUMER must be given here too, or the
 * server refuses the new consumer.
 */
export function natsRoles(names: DurableNames = {}): Record<NatsUser, NatsRole> {
  const status = names.statusConsumer ?? DEFAULT_STATUS_CONSUMER;
  const dispatcher = names.webhookConsumer ?? DEFAULT_WEBHOOK_CONSUMER;
  return {
    // The public API: it calls every service and keeps the partner directory, but reads
    // no stream (payment events carry payers' data it has no need of).
    gateway: {
      ...none,
      calls: [
        'paymentsRegister',
        'paymentsGet',
        'paymentsRefund',
        'checkoutView',
        'checkoutStart',
        'checkoutReturn',
        'productLookup',
        'attemptStart',
        'qrConfigSet',
        'qrConfigUnset',
        'qrConfigGet',
        'statusReferenceGet',
        'deliveriesOfPayment',
        'deliveryReplay',
        'receiptEmailSend',
        // The back office API.
        'paymentsList',
        'paymentsCancel',
        'paymentsReportDaily',
        'qrCodesList',
        'webhookEventsList',
        'webhookEventReplay',
        'webhookTestSend',
        'webhookDeliveriesList',
        // Payment links, their payers' page, the balance and payouts.
        ...MERCHANT_PAYMENT_LINKS,
        'paymentLinkView',
        'paymentLinkPay',
        ...MERCHANT_BALANCE,
      ],
      kvWrites: ['partners'],
    },
    'qr-config': {
      ...none,
      serves: ['qrConfigSet', 'qrConfigUnset', 'qrConfigGet', 'qrCodeCreate', 'qrCodesList'],
      // Ensures PAYMENTS too, so it may start before payments.
      ensures: ['payments'],
      consumes: [DurableConsumers.qrConfigSingleUse],
    },
    payments: {
      ...none,
      serves: [
        'paymentsRegister',
        'paymentsGet',
        'paymentsRefund',
        'checkoutView',
        'checkoutStart',
        'checkoutReturn',
        'productLookup',
        'attemptStart',
        'paymentsList',
        'paymentsCancel',
        'paymentsReportDaily',
        'paymentsReconcile',
        // Status asks it before calling a reference free.
        'referenceHeld',
        ...MERCHANT_PAYMENT_LINKS,
        'paymentLinkView',
        'paymentLinkPay',
        ...MERCHANT_BALANCE,
        'payoutRecord',
      ],
      publishes: ['payments'],
      ensures: ['payments'],
      // Partner endpoints and their sealed secrets for product lookups.
      kvReads: ['partners'],
    },
    status: {
      ...none,
      serves: ['statusReferenceGet'],
      // Payments' own rows, before a reference is called free (docs/status.md).
      calls: ['referenceHeld'],
      ensures: ['payments', 'webhooks'],
      consumes: [
        { ...DurableConsumers.statusPayments, durable: status },
        { ...DurableConsumers.statusWebhooks, durable: statusWebhooksDurable(status) },
      ],
    },
    'webhook-dispatcher': {
      ...none,
      serves: [
        'deliveriesOfPayment',
        'deliveryReplay',
        'webhookEventsList',
        'webhookEventReplay',
        'webhookTestSend',
        'webhookDeliveriesList',
      ],
      publishes: ['webhooks'],
      ensures: ['webhooks', 'payments'],
      consumes: [{ ...DurableConsumers.dispatcherPayments, durable: dispatcher }],
      kvReads: ['partners'],
    },
    receipts: {
      ...none,
      serves: ['receiptEmailSend'],
      calls: ['paymentsGet'],
    },
    // The merchants' pages: views over the back office operations, asked on a signed-in
    // merchant's behalf. It serves nothing and reads no stream or bucket (webhook
    // settings reach the partner directory through the gateway, from Postgres).
    dashboard: {
      ...none,
      calls: [
        'paymentsGet',
        'paymentsList',
        'paymentsRefund',
        'paymentsCancel',
        'paymentsReportDaily',
        'qrCodesList',
        'qrConfigGet',
        'qrConfigSet',
        'qrConfigUnset',
        'receiptEmailSend',
        'deliveriesOfPayment',
        'deliveryReplay',
        'webhookEventsList',
        'webhookTestSend',
        'webhookDeliveriesList',
        ...MERCHANT_PAYMENT_LINKS,
        ...MERCHANT_BALANCE,
      ],
    },
    // `dzpay qr create` asks qr-config for a code, `dzpay reconcile` asks payments for a
    // reconciliation and `dzpay payout record|list` for payouts; the other commands use Postgres.
    cli: { ...none, calls: ['qrCodeCreate', 'paymentsReconcile', 'payoutRecord', 'payoutsList'] },
  };
}

/** The allow lists of one user; everything else is denied. */
export interface NatsPermissions {
  publish: string[];
  subscribe: string[];
  /** May answer requests it received (to the requester's inbox), once each. */
  allowResponses: boolean;
}

const API = '$JS.API';

/**
 * Names as the services build them (streamName, inboxPrefixOf in libs/platform/src/nats.ts;
 * the unit test holds them equal): a stream name cannot hold dots.
 */
const safe = (prefix: string) => prefix.replace(/[^A-Za-z0-9_-]/g, '_');
const streamOf = (prefix: string, key: StreamKey) => `${safe(prefix)}_${Streams[key].name}`;
const bucketOf = (prefix: string, key: BucketKey) => `${safe(prefix)}_${Buckets[key]}`;
export const inboxOf = (user: string) => `_INBOX_${user}`;

/** The users that call any Rpc `user` serves, in the order of NATS_USERS. */
export function repliesTo(roles: Record<NatsUser, NatsRole>, user: NatsUser): NatsUser[] {
  const served = new Set<RpcName>(roles[user].serves);
  return NATS_USERS.filter((caller) => roles[caller].calls.some((name) => served.has(name)));
}

/** What `user` may do on the NATS of a deployment whose subjects carry `prefix`. */
export function permissionsOf(
  user: string,
  role: NatsRole,
  prefix: string,
  /** The users that call an Rpc this role serves (repliesTo): it answers into their inboxes. */
  answers: readonly string[] = [],
): NatsPermissions {
  const publish: string[] = [];
  const subscribe: string[] = [`${inboxOf(user)}.>`];
  const subject = (name: RpcName) => `${prefix}.${Rpc[name].subject}`;

  for (const name of role.serves) subscribe.push(subject(name));
  for (const name of role.calls) publish.push(subject(name));
  // Replies. allow_responses alone is not enough on a cluster: the server that delivered a
  // request remembers the reply it may carry, and a service that reconnects to another
  // node before answering (its node died) is refused there (the cluster campaign, seed 22,
  // met it). Its callers' inboxes, and only theirs, are granted outright.
  for (const caller of answers) publish.push(`${inboxOf(caller)}.>`);
  for (const key of role.publishes) {
    for (const events of Streams[key].subjects) publish.push(`${prefix}.${events}`);
  }
  const usesJetStream =
    role.publishes.length + role.ensures.length + role.consumes.length > 0 ||
    role.kvWrites.length + role.kvReads.length > 0;
  // The client asks for the account's JetStream limits when it first uses JetStream.
  if (usesJetStream) publish.push(`${API}.INFO`);

  for (const key of role.ensures) {
    const stream = streamOf(prefix, key);
    for (const verb of ['INFO', 'CREATE', 'UPDATE'])
      publish.push(`${API}.STREAM.${verb}.${stream}`);
  }
  for (const { stream: key, durable } of role.consumes) {
    const stream = streamOf(prefix, key);
    const consumer = `${stream}.${durable}`;
    publish.push(
      `${API}.CONSUMER.INFO.${consumer}`,
      `${API}.CONSUMER.CREATE.${consumer}`,
      // Created or updated with a filter subject, which the API puts after the name.
      `${API}.CONSUMER.CREATE.${consumer}.>`,
      `${API}.CONSUMER.DELETE.${consumer}`,
      `${API}.CONSUMER.MSG.NEXT.${consumer}`,
      // ack, nak, term, in-progress: the reply subject of each delivered message.
      `$JS.ACK.${consumer}.>`,
      // The last event under the stream's former subjects, before narrowing to its filter
      // (libs/platform/src/former-events.ts). Its own consumer could read the stream anyway.
      `${API}.STREAM.MSG.GET.${stream}`,
    );
  }
  for (const key of role.kvWrites) {
    const bucket = bucketOf(prefix, key);
    const stream = `KV_${bucket}`;
    publish.push(
      ...['INFO', 'CREATE', 'UPDATE'].map((verb) => `${API}.STREAM.${verb}.${stream}`),
      // put, create, update, delete: publishes to the bucket's subjects.
      `$KV.${bucket}.>`,
      ...kvGets(stream),
      // keys() runs an ordered consumer of its own bucket, named at random.
      `${API}.CONSUMER.CREATE.${stream}.>`,
      `${API}.CONSUMER.INFO.${stream}.>`,
      `${API}.CONSUMER.DELETE.${stream}.>`,
      `$JS.FC.${stream}.>`,
    );
  }
  for (const key of role.kvReads) {
    const stream = `KV_${bucketOf(prefix, key)}`;
    publish.push(`${API}.STREAM.INFO.${stream}`, ...kvGets(stream));
  }
  return {
    publish: [...new Set(publish)],
    subscribe: [...new Set(subscribe)],
    allowResponses: role.serves.length > 0,
  };
}

/** Reading a KV entry: a direct get where the bucket allows it, else a message get. */
function kvGets(stream: string): string[] {
  return [
    `${API}.DIRECT.GET.${stream}`,
    `${API}.DIRECT.GET.${stream}.>`,
    `${API}.STREAM.MSG.GET.${stream}`,
  ];
}

/** A password written into the configuration, or the server's environment variable holding it. */
export type PasswordSource = string | { env: string };

/** The variable the server reads a user's password from in production: NATS_<USER>_PASSWORD. */
export function passwordVariable(user: string): string {
  return `NATS_${user.toUpperCase().replace(/-/g, '_')}_PASSWORD`;
}

export interface AuthorizationOptions {
  /** NATS_PREFIX of the deployment. */
  prefix: string;
  /** Each user's password. */
  password: (user: NatsUser) => PasswordSource;
  durables?: DurableNames;
  /**
   * A user without restrictions, for operators and test harnesses (stream listings,
   * cluster health); no service ever connects as it.
   */
  admin?: { user: string; password: PasswordSource };
}

/** The nats-server `authorization { users = [...] }` block. */
export function authorizationBlock(options: AuthorizationOptions): string {
  const roles = natsRoles(options.durables);
  const lines = [
    `# Generated from the subject catalog (libs/stack/src/nats-permissions.ts) for prefix`,
    `# ${JSON.stringify(options.prefix)}: regenerate rather than edit (docs/nats-security.md).`,
    'authorization {',
    '  users = [',
  ];
  for (const user of NATS_USERS) {
    const permissions = permissionsOf(user, roles[user], options.prefix, repliesTo(roles, user));
    lines.push(
      '    {',
      `      user: ${quote(user)}`,
      `      password: ${passwordText(options.password(user))}`,
      '      permissions: {',
      `        publish: { allow: ${list(permissions.publish, 8)} }`,
      `        subscribe: { allow: ${list(permissions.subscribe, 8)} }`,
      ...(permissions.allowResponses ? ['        allow_responses: true'] : []),
      '      }',
      '    }',
    );
  }
  if (options.admin) {
    lines.push(
      '    # Unrestricted: operators and test harnesses only.',
      `    { user: ${quote(options.admin.user)}, password: ${passwordText(options.admin.password)} }`,
    );
  }
  lines.push('  ]', '}');
  return `${lines.join('\n')}\n`;
}

/** TLS for clients (production): the server's certificate, and the CA that signs clients' if they must present one. */
export interface TlsFiles {
  certFile: string;
  keyFile: string;
  /** The CA of clients' certificates; with it, every client must present one. */
  caFile?: string;
}

/** The nats-server `tls {}` block for client connections. */
export function tlsBlock(tls: TlsFiles): string {
  return [
    'tls {',
    `  cert_file: ${quote(tls.certFile)}`,
    `  key_file: ${quote(tls.keyFile)}`,
    ...(tls.caFile ? [`  ca_file: ${quote(tls.caFile)}`, '  verify: true'] : []),
    '  timeout: 2',
    '}',
    '',
  ].join('\n');
}

/**
 * Values for the `nats` Helm chart (deploy/README.md): the same users as `config.merge`,
 * each password read from `secretName` in the servers' namespace (NATS_<USER>_PASSWORD).
 */
export function helmValues(options: {
  prefix: string;
  secretName: string;
  durables?: DurableNames;
  /** Adds the unrestricted `admin` user, its password NATS_ADMIN_PASSWORD. */
  admin?: boolean;
}): string {
  const roles = natsRoles(options.durables);
  const users: unknown[] = NATS_USERS.map((user) => {
    const permissions = permissionsOf(user, roles[user], options.prefix, repliesTo(roles, user));
    return {
      user,
      // The chart writes `<< … >>` unquoted: a variable the server reads from its environment.
      password: `<< $${passwordVariable(user)} >>`,
      permissions: {
        publish: { allow: permissions.publish },
        subscribe: { allow: permissions.subscribe },
        ...(permissions.allowResponses ? { allow_responses: true } : {}),
      },
    };
  });
  const variables = NATS_USERS.map(passwordVariable);
  if (options.admin) {
    users.push({ user: 'admin', password: `<< $${passwordVariable('admin')} >>` });
    variables.push(passwordVariable('admin'));
  }
  const env = Object.fromEntries(
    variables.map((name) => [
      name,
      { valueFrom: { secretKeyRef: { name: options.secretName, key: name } } },
    ]),
  );
  // JSON is YAML: helm reads this file as it is.
  const values = { config: { merge: { authorization: { users } } }, container: { env } };
  return `${JSON.stringify(values, null, 2)}\n`;
}

function passwordText(source: PasswordSource): string {
  if (typeof source !== 'string') {
    if (!/^[A-Z_][A-Z0-9_]*$/.test(source.env)) throw new Error(`bad variable ${source.env}`);
    // Unquoted: the server reads it from its environment, and refuses to start without it.
    return `$${source.env}`;
  }
  if (!/^[A-Za-z0-9._~+/=-]{16,}$/.test(source)) {
    throw new Error('a NATS password must be at least 16 characters of [A-Za-z0-9._~+/=-]');
  }
  return quote(source);
}

/** A quoted string of the server's configuration, where `$` is literal. */
function quote(text: string): string {
  return JSON.stringify(text);
}

function list(items: string[], indent: number): string {
  const pad = ' '.repeat(indent + 2);
  return `[\n${items.map((item) => `${pad}${quote(item)}`).join('\n')}\n${' '.repeat(indent)}]`;
}
