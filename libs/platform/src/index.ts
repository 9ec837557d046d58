// @dzpay/platform: what dzpay's services run on, named group by group; the rest of
// src/ is internal.

// Configuration, logging, and the runtime that wires a service's connections together.
export { BaseEnv, loadConfig } from './config.ts';
export { createLogger, type LogDestination, type Logger } from './logger.ts';
export { startRuntime, type Runtime } from './runtime.ts';
export { commitProbe, NOT_COMMITTING } from './commit-probe.ts';
export { metricsOf } from './metrics.ts';

// Errors that carry a code of the catalog across HTTP and NATS.
export { AppError, isAppError } from './errors.ts';

// Postgres: a pool on the service's own schema, its migrations, and outages told apart.
export { connectPostgres, isDatabaseUnavailable, migrate, type Sql, type Tx } from './db.ts';

// Redis.
export { connectRedis, type Redis } from './redis.ts';

// NATS: connections, subject prefixes, and the JetStream streams a service declares.
export {
  connectNats,
  deployedStream,
  ensureStream,
  inboxPrefixOf,
  keepReplicas,
  natsAccessOf,
  prefixed,
  streamName,
  type NatsConnection,
  type StreamSpec,
} from './nats.ts';

// Request/reply over NATS, with the contracts' schemas checked on both sides.
export { requestRpc, serveRpc, type RpcServer } from './rpc.ts';

// The outbox: events written in the state change's transaction, relayed, then pruned.
export { writeOutbox, type OutboxEvent } from './outbox.ts';
export { startOutboxRelay } from './outbox-relay.ts';
export { outboxPruneTask, processedEventsPruneTask } from './pruner.ts';

// Consuming streams: one durable consumer per reader, filtered on the server, its
// events acknowledged once handled, its progress watched.
export { consumeEvents, type Handled } from './event-consumer.ts';
export { jsonOf, type StreamConsumer } from './stream-consumer.ts';
export { batcher } from './batcher.ts';

// Tracing across HTTP, NATS and the outbox.
export { contextOf, inSpan, natsContextOf, SpanKind, traceCarrier } from './tracing.ts';

// Memory in front of a slower source, and the notifications that keep it exact.
export { readThroughCache } from './read-through-cache.ts';
export { onStatusChanges } from './status-changes.ts';

// Email over SMTP: the settings every sender reads and a pooled transport.
export {
  smtpEnv,
  smtpMailer,
  type MailAccepted,
  type Mailer,
  type OutgoingMail,
  type SmtpSettings,
} from './smtp.ts';

// Secrets sealed at rest, each bound to its owner.
export {
  openSecret,
  partnerSecretOwner,
  sealSecret,
  secretsKey,
  signingSecretOwner,
} from './sealed-secret.ts';

// Merchants' partner servers: where they are, and HTTP that reaches only public addresses.
export {
  partnerBucketName,
  partnerDirectory,
  type PartnerDirectory,
  type PartnerEndpoint,
  type WebhookTarget,
} from './partner/partner-directory.ts';
export {
  partnerHttpClient,
  TargetRefusedError,
  type PartnerConnect,
  type PartnerHttpClient,
} from './partner/partner-http.ts';
export { apiUrlProblem, partnerUrl } from './partner/partner-url.ts';
export { isPublicAddress } from './partner/address-guard.ts';
export { PartnerTargetsEnv } from './partner/settings.ts';

// Public HTTP services: HTML text escaped for their pages, their requests measured.
export { escapeHtml } from './html.ts';
export { observeHttpRequests, urlFreeLogController } from './http-requests.ts';

// How long every HTTP server waits for a request to arrive, and for the next one.
export {
  HTTP_LIMITS,
  httpLimitOptions,
  type HttpLimitOptions,
  type HttpLimits,
} from './http-limits.ts';
