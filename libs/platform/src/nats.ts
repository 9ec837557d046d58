import { connect, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node';
import {
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from '@nats-io/jetstream';

export type { NatsConnection };

/**
 * Who a process is on NATS, and how it reaches the servers (docs/nats-security.md).
 * Empty: an anonymous connection, as to the unauthenticated NATS of in-process tests.
 */
export interface NatsAccess {
  user?: string;
  password?: string;
  /** CA, client certificate and key files; any of them requires TLS. */
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
}

/** The NATS_* variables of BaseEnv as connection settings. */
export function natsAccessOf(config: {
  NATS_USER?: string | undefined;
  NATS_PASSWORD?: string | undefined;
  NATS_TLS_CA_FILE?: string | undefined;
  NATS_TLS_CERT_FILE?: string | undefined;
  NATS_TLS_KEY_FILE?: string | undefined;
}): NatsAccess {
  const tls = {
    ...(config.NATS_TLS_CA_FILE ? { caFile: config.NATS_TLS_CA_FILE } : {}),
    ...(config.NATS_TLS_CERT_FILE ? { certFile: config.NATS_TLS_CERT_FILE } : {}),
    ...(config.NATS_TLS_KEY_FILE ? { keyFile: config.NATS_TLS_KEY_FILE } : {}),
  };
  return {
    ...(config.NATS_USER ? { user: config.NATS_USER } : {}),
    ...(config.NATS_PASSWORD ? { password: config.NATS_PASSWORD } : {}),
    ...(Object.keys(tls).length > 0 ? { tls } : {}),
  };
}

/**
 * The reply inboxes of a NATS user: the server's permissions let only that user
 * subscribe under it, so no other service can read its replies (the generator of the
 * permissions, libs/stack/src/nats-permissions.ts, uses the same name).
 */
export function inboxPrefixOf(user: string): string {
  return `_INBOX_${user}`;
}

/**
 * The connection options for `servers` (comma-separated; a `tls://` URL asks for TLS,
 * which nats.js would otherwise only use when the server offers it).
 */
export function natsConnectionOptions(
  servers: string,
  name: string,
  access: NatsAccess = {},
): ConnectionOptions {
  const urls = servers.split(',').map((server) => server.trim());
  const wantsTls = access.tls !== undefined || urls.some((url) => /^tls:\/\//i.test(url));
  return {
    servers: urls,
    name,
    ...(access.user !== undefined
      ? { user: access.user, pass: access.password ?? '', inboxPrefix: inboxPrefixOf(access.user) }
      : {}),
    // An object (even empty) makes the client refuse a server without TLS.
    ...(wantsTls ? { tls: { ...access.tls } } : {}),
    // Keep trying through a NATS restart instead of giving up after ten attempts.
    maxReconnectAttempts: -1,
    // Without this every request builds an Error up front to keep its call site for a
    // possible timeout: a tenth of the gateway's CPU under load, for a nicer stack.
    noAsyncTraces: true,
  };
}

export async function connectNats(
  servers: string,
  name: string,
  access: NatsAccess = {},
): Promise<NatsConnection> {
  return connect(natsConnectionOptions(servers, name, access));
}

/** Every subject and stream of a deployment carries its prefix. */
export function prefixed(prefix: string, subject: string): string {
  return `${prefix}.${subject}`;
}

/** Stream names cannot hold dots; the prefix becomes part of the name. */
export function streamName(prefix: string, name: string): string {
  return `${prefix.replace(/[^A-Za-z0-9_-]/g, '_')}_${name}`;
}

export interface StreamSpec {
  /** Short name, e.g. PAYMENTS; the prefix is added. */
  name: string;
  /** Subjects without the prefix, e.g. payments.events.> */
  subjects: readonly string[];
  /**
   * Subjects its events had under an earlier layout, which it may still hold: a reader
   * narrows to its filter only once none lies ahead of it (durable-consumer.ts).
   */
  formerSubjects?: readonly string[];
  /** Window in which a repeated Nats-Msg-Id is dropped. */
  duplicateWindowMs?: number;
  replicas?: number;
  /** Messages older than this are dropped; unset keeps them for ever. */
  maxAgeMs?: number;
}

/** The stream as this deployment runs it: STREAM_REPLICAS copies, STREAM_MAX_AGE_MS of history. */
export function deployedStream(
  spec: Pick<StreamSpec, 'name' | 'subjects' | 'formerSubjects'>,
  config: { STREAM_REPLICAS: number; STREAM_MAX_AGE_MS: number },
): StreamSpec {
  return { ...spec, replicas: config.STREAM_REPLICAS, maxAgeMs: config.STREAM_MAX_AGE_MS };
}

/**
 * Creates the stream, or brings an existing one to the given subjects, on file storage
 * with a deduplication window: facts that carry money must survive a NATS restart and
 * a relay that publishes the same outbox row twice.
 */
export async function ensureStream(
  nc: NatsConnection,
  prefix: string,
  spec: StreamSpec,
): Promise<StreamConfig> {
  const jsm = await jetstreamManager(nc);
  const name = streamName(prefix, spec.name);
  // What may change on an existing stream; its storage type cannot.
  const changeable = {
    subjects: spec.subjects.map((subject) => prefixed(prefix, subject)),
    retention: RetentionPolicy.Limits,
    num_replicas: spec.replicas ?? 1,
    // JetStream refuses a window longer than the stream keeps its messages.
    duplicate_window:
      Math.min(spec.duplicateWindowMs ?? 120_000, spec.maxAgeMs ?? Infinity) * 1_000_000,
    max_age: (spec.maxAgeMs ?? 0) * 1_000_000,
  };
  try {
    const info = await jsm.streams.info(name);
    const updated = await jsm.streams.update(name, { ...info.config, ...changeable });
    return updated.config;
  } catch (error) {
    if (!isStreamNotFound(error)) throw error;
    const created = await jsm.streams.add({ name, storage: StorageType.File, ...changeable });
    return created.config;
  }
}

/** Scales an existing stream (a KV bucket's too) to `replicas` copies when it has another count. */
export async function keepReplicas(
  nc: NatsConnection,
  stream: string,
  replicas: number,
): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(stream);
  if (info.config.num_replicas === replicas) return;
  await jsm.streams.update(stream, { ...info.config, num_replicas: replicas });
}

function isStreamNotFound(error: unknown): boolean {
  return error instanceof Error && /stream not found/i.test(error.message);
}
