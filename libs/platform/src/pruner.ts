import type { Sql } from './db.ts';
import type { Logger } from './logger.ts';

/** One kind of row that ages out: deletes at most `limit` of them, answers how many. */
export interface PruneTask {
  name: string;
  prune(limit: number): Promise<number>;
}

export interface Pruner {
  /** One round now: every task, batch after batch, until each has nothing old left (or its cap). */
  runOnce(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/**
 * Deletes what has aged out, in small batches with a pause between them, so pruning
 * never holds many locks nor a long transaction that the hot path would wait behind.
 * A round stops a task after `maxBatches` (the rest goes next round). Replicas may
 * prune at the same time: each batch skips rows another one has locked.
 */
export function startPruner(deps: {
  tasks: PruneTask[];
  logger: Logger;
  intervalMs: number;
  batchSize?: number;
  maxBatches?: number;
  pauseMs?: number;
}): Pruner {
  const batchSize = deps.batchSize ?? 500;
  const maxBatches = deps.maxBatches ?? 100;
  const pauseMs = deps.pauseMs ?? 50;
  let stopped = false;
  let round: Promise<Record<string, number>> | undefined;

  async function pruneAll(): Promise<Record<string, number>> {
    const pruned: Record<string, number> = {};
    for (const task of deps.tasks) {
      let total = 0;
      for (let batch = 0; batch < maxBatches && !stopped; batch++) {
        const n = await task.prune(batchSize);
        total += n;
        if (n < batchSize) break;
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
      pruned[task.name] = total;
    }
    const any = Object.values(pruned).some((n) => n > 0);
    if (any) deps.logger.info({ pruned }, 'aged-out rows pruned');
    return pruned;
  }

  function runOnce(): Promise<Record<string, number>> {
    round ??= pruneAll().finally(() => {
      round = undefined;
    });
    return round;
  }

  const timer = setInterval(() => {
    if (round || stopped) return;
    runOnce().catch((err: unknown) =>
      deps.logger.warn({ err }, 'pruning failed; next round retries'),
    );
  }, deps.intervalMs);
  timer.unref();

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await round?.catch(() => undefined);
    },
  };
}

/** Published outbox rows older than `keepMs`: the stream has them, and dedups within minutes. */
export function outboxPruneTask(sql: Sql, keepMs: number): PruneTask {
  return oldestFirst(sql, {
    name: 'outbox',
    table: 'outbox',
    id: 'id',
    at: 'published_at',
    keepMs,
  });
}

/**
 * Ids of events already applied, older than `keepMs`. Kept longer than the stream keeps
 * the event (DEDUP_RETENTION_MS > STREAM_MAX_AGE_MS), so a redelivery or a replay can
 * never meet an event whose id was forgotten.
 */
export function processedEventsPruneTask(sql: Sql, keepMs: number): PruneTask {
  return oldestFirst(sql, {
    name: 'processed events',
    table: 'processed_events',
    id: 'event_id',
    at: 'processed_at',
    keepMs,
  });
}

/** Rows whose `at` is older than `keepMs` (a null `at` never is), oldest first, a batch at a time. */
function oldestFirst(
  sql: Sql,
  o: { name: string; table: string; id: string; at: string; keepMs: number },
): PruneTask {
  return {
    name: o.name,
    async prune(limit) {
      const rows = await sql`
        delete from ${sql(o.table)} where ${sql(o.id)} in (
          select ${sql(o.id)} from ${sql(o.table)}
          where ${sql(o.at)} < now() - ${o.keepMs} * interval '1 millisecond'
          order by ${sql(o.at)}
          limit ${limit}
          for update skip locked)
        returning 1`;
      return rows.length;
    },
  };
}
