import type { Consumer } from '@nats-io/jetstream';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { bindProgress, consumerProgressWatch, type ConsumerProgress } from './consumer-progress.ts';
import type { Sql } from './db.ts';
import type { Logger } from './logger.ts';
import type { NatsConnection } from './nats.ts';

/**
 * The metrics every service shares, on its own registry (several services may run in
 * one process in tests). Values that live elsewhere (consumer lag, outbox backlog) are
 * read when Prometheus scrapes, not kept up to date in between.
 */
export function platformMetrics(
  registry: Registry,
  options: { consumerStallMs?: number; logger?: Logger } = {},
) {
  const outboxes = new Set<Sql>();
  const stallAfterMs = options.consumerStallMs ?? 30_000;
  const progress = consumerProgressWatch({
    stallAfterMs,
    checkEveryMs: Math.max(250, Math.min(5_000, stallAfterMs / 4)),
    logger: options.logger,
  });

  const natsRequestSeconds = new Histogram({
    name: 'dzpay_nats_request_duration_seconds',
    help: 'NATS requests this service made to other services, by subject and outcome',
    labelNames: ['subject', 'outcome'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const natsRequestRetries = new Counter({
    name: 'dzpay_nats_request_retries_total',
    help: 'Tries of idempotent NATS requests asked again, by subject and why the try got no answer (timeout, no-responders)',
    labelNames: ['subject', 'reason'],
    registers: [registry],
  });
  new Gauge({
    name: 'dzpay_stream_consumer_pending_messages',
    help: 'Messages of a stream its durable consumer has not handled yet (not delivered, or delivered and not acknowledged)',
    labelNames: ['stream', 'consumer'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const { stream, consumer } of progress.watched()) {
        const info = await consumer.info().catch(() => null);
        if (info) {
          this.set({ stream, consumer: info.name }, info.num_pending + info.num_ack_pending);
        }
      }
    },
  });
  new Gauge({
    name: 'dzpay_outbox_backlog_events',
    help: 'Events committed to the outbox and not yet published to JetStream',
    registers: [registry],
    async collect() {
      let backlog = 0;
      for (const sql of outboxes) {
        const [row] = await sql<{ n: number }[]>`
          select count(*)::int as n from outbox where published_at is null`.catch(() => [{ n: 0 }]);
        backlog += row?.n ?? 0;
      }
      this.set(backlog);
    },
  });

  new Gauge({
    name: 'dzpay_stream_consumer_stalled',
    help: 'Whether a durable consumer has made no progress while messages wait for it (1), see docs/runbook.md',
    labelNames: ['stream', 'consumer'],
    registers: [registry],
    collect() {
      this.reset();
      for (const state of progress.states()) {
        this.set({ stream: state.stream, consumer: state.consumer }, state.stalledSince ? 1 : 0);
      }
    },
  });

  return {
    natsRequestSeconds,
    natsRequestRetries,
    /** Durable consumers that stopped moving while messages wait (the /readyz check). */
    consumerProgress: progress,
    /**
     * Reports this durable consumer's lag from now on, and watches that it moves; its
     * reader finds the answer with progressOf(consumer).
     */
    watchConsumer(stream: string, durable: string, consumer: Consumer): ConsumerProgress {
      const watched = progress.watch(stream, durable, consumer);
      bindProgress(consumer, watched);
      return watched;
    },
    /** Reports this schema's outbox backlog from now on. */
    watchOutbox(sql: Sql): void {
      outboxes.add(sql);
    },
  };
}

export type PlatformMetrics = ReturnType<typeof platformMetrics>;

/** The metrics of the service that owns a NATS connection, for code that only has the connection. */
const byConnection = new WeakMap<NatsConnection, PlatformMetrics>();

export function bindMetrics(nc: NatsConnection, metrics: PlatformMetrics): void {
  byConnection.set(nc, metrics);
}

export function metricsOf(nc: NatsConnection): PlatformMetrics | undefined {
  return byConnection.get(nc);
}
