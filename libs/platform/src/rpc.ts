import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import {
  RequestError,
  TimeoutError,
  type Msg,
  type NatsConnection,
  type Subscription,
} from '@nats-io/transport-node';
import { RpcEnvelope, type RpcDefinition } from '@dzpay/contracts';
import { isDatabaseUnavailable } from './db.ts';
import { AppError } from './errors.ts';
import type { Logger } from './logger.ts';
import { metricsOf } from './metrics.ts';
import { prefixed } from './nats.ts';
import {
  IDEMPOTENT_RETRY,
  mayTryAgain,
  patienceMs,
  pauseAfterNoResponders,
  SINGLE_TRY,
  type RetryPolicy,
  type TransportFailure,
} from './rpc-retry.ts';
import { inSpan, natsContextOf, natsTraceHeaders, SpanKind } from './tracing.ts';

type RequestOf<D extends RpcDefinition> = z.infer<D['request']>;
type ReplyOf<D extends RpcDefinition> = z.infer<D['reply']>;

export interface RpcServer {
  /** Stops taking requests, then waits until every request already taken is answered. */
  stop(): Promise<void>;
  /** Requests being handled right now. */
  inFlight(): number;
}

/**
 * Answers one subject of the catalog. Replicas share the work through a queue group.
 * A handler returns the reply or throws AppError, whose code travels back; any other
 * error is logged and answered as INTERNAL500_ERROR without its text. Resolves once the
 * NATS server has the subscription.
 */
export async function serveRpc<D extends RpcDefinition>(
  nc: NatsConnection,
  prefix: string,
  definition: D,
  handler: (request: RequestOf<D>) => Promise<ReplyOf<D>>,
  logger: Logger,
): Promise<RpcServer> {
  const pending = new Set<Promise<void>>();
  const subject = prefixed(prefix, definition.subject);

  async function answer(msg: Msg): Promise<void> {
    // The handler runs in the caller's trace (the context came in the message headers).
    const envelope = await inSpan(
      `nats serve ${definition.subject}`,
      { kind: SpanKind.SERVER, parent: natsContextOf(msg.headers) },
      async (span): Promise<RpcEnvelope> => {
        try {
          const request = definition.request.parse(msg.json()) as RequestOf<D>;
          return { ok: true, value: definition.reply.parse(await handler(request)) };
        } catch (error) {
          const failure = failureOf(error, subject, logger);
          span.setAttribute('dzpay.error_code', failure.code);
          return { ok: false, error: failure };
        }
      },
    );
    if (msg.reply) msg.respond(JSON.stringify(envelope));
  }

  const subscription: Subscription = nc.subscribe(subject, {
    queue: subject,
    callback: (error, msg) => {
      if (error) {
        logger.error({ err: error, subject }, 'subscription failed');
        return;
      }
      const work = answer(msg).finally(() => pending.delete(work));
      pending.add(work);
    },
  });

  // Once the server has the subscription, requests sent from any connection reach it.
  await nc.flush();
  return {
    async stop() {
      await subscription.drain();
      await Promise.allSettled([...pending]);
    },
    inFlight: () => pending.size,
  };
}

function failureOf(error: unknown, subject: string, logger: Logger) {
  if (error instanceof AppError) {
    return {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
    };
  }
  if (isDatabaseUnavailable(error)) {
    logger.warn({ err: error, subject }, 'database unavailable');
    return {
      code: 'SERVICE503_UNAVAILABLE' as const,
      message: 'service temporarily unavailable, retry later',
    };
  }
  logger.error({ err: error, subject }, 'request failed');
  return { code: 'INTERNAL500_ERROR' as const, message: 'internal error' };
}

export interface RequestOptions {
  /** The whole wait, every try included (5 s unless told). */
  timeoutMs?: number;
  /**
   * For an idempotent definition: how long a try is waited for before the question is
   * sent again beside it (IDEMPOTENT_RETRY's second unless told).
   */
  tryTimeoutMs?: number;
}

/**
 * Sends a request of the catalog and returns the validated reply. A failure reply is
 * thrown as AppError with the code the service chose; no responder or no answer in
 * time is SERVICE503_UNAVAILABLE, so callers answer fast instead of hanging.
 *
 * An idempotent definition (a read) is asked again when a try has no answer after
 * `tryTimeoutMs`, or finds no responder: the replica that took it may have died, and
 * another one answers. Earlier tries still count: the first answer to any of them is
 * taken. A reply, even a failure the service chose, is never asked again.
 */
export async function requestRpc<D extends RpcDefinition>(
  nc: NatsConnection,
  prefix: string,
  definition: D,
  request: RequestOf<D>,
  options: RequestOptions = {},
): Promise<ReplyOf<D>> {
  const subject = prefixed(prefix, definition.subject);
  const checked = definition.request.safeParse(request);
  if (!checked.success) {
    throw new AppError('INTERNAL500_ERROR', `invalid request for ${definition.subject}`, {
      cause: checked.error,
    });
  }
  const payload = JSON.stringify(checked.data);
  const timeoutMs = options.timeoutMs ?? 5_000;
  const policy = definition.idempotent
    ? { ...IDEMPOTENT_RETRY, patienceMs: options.tryTimeoutMs ?? IDEMPOTENT_RETRY.patienceMs }
    : SINGLE_TRY;
  const metrics = metricsOf(nc);
  const timer = metrics?.natsRequestSeconds.startTimer({ subject: definition.subject });
  const msg = await inSpan(
    `nats request ${definition.subject}`,
    { kind: SpanKind.CLIENT, attributes: { 'messaging.destination.name': subject } },
    async (span) => {
      const hdrs = natsTraceHeaders();
      const send = (timeout: number) =>
        nc.request(subject, payload, { timeout, ...(hdrs ? { headers: hdrs } : {}) });
      return firstAnswer(send, policy, timeoutMs, (reason, tries) => {
        // Counted, not logged: a failover makes many callers ask again at once.
        metrics?.natsRequestRetries.inc({ subject: definition.subject, reason });
        span.addEvent('retry', { reason });
        span.setAttribute('dzpay.rpc.tries', tries);
      });
    },
  ).catch((error: unknown) => {
    timer?.({ outcome: 'unavailable' });
    throw unavailable(error, definition.subject);
  });
  const envelope = RpcEnvelope.parse(msg.json());
  timer?.({ outcome: envelope.ok ? 'ok' : 'error' });
  if (!envelope.ok) {
    const { code, message, details } = envelope.error;
    throw new AppError(code, message, details ? { details } : {});
  }
  return definition.reply.parse(envelope.value) as ReplyOf<D>;
}

interface Settled {
  attempt: Promise<Settled>;
  msg?: Msg;
  error?: unknown;
}

/**
 * Sends tries until one is answered: another when the newest has had its patience
 * without an answer, or after a short pause when it found no responder. Every try waits
 * until the deadline, so the first answer to any of them wins. Throws the last failure
 * once no try is left waiting and none may be sent.
 */
async function firstAnswer(
  send: (timeoutMs: number) => Promise<Msg>,
  policy: RetryPolicy,
  timeoutMs: number,
  onRetry: (reason: TransportFailure, tries: number) => void,
): Promise<Msg> {
  const deadline = Date.now() + timeoutMs;
  const waiting = new Set<Promise<Settled>>();
  let tries = 0;
  const launch = () => {
    tries++;
    const attempt: Promise<Settled> = send(Math.max(1, deadline - Date.now())).then(
      (msg) => ({ attempt, msg }),
      (error: unknown) => ({ attempt, error }),
    );
    waiting.add(attempt);
  };
  launch();
  for (;;) {
    const patience = new AbortController();
    const waits: Promise<Settled | 'impatient'>[] = [...waiting];
    if (mayTryAgain(policy, tries, Date.now(), deadline)) {
      const ms = patienceMs(policy, Date.now(), deadline);
      waits.push(
        sleep(ms, 'impatient' as const, { signal: patience.signal }).catch(
          () => 'impatient' as const,
        ),
      );
    }
    const first = await Promise.race(waits);
    patience.abort();
    if (first === 'impatient') {
      onRetry('timeout', tries + 1);
      launch();
      continue;
    }
    waiting.delete(first.attempt);
    if (first.msg) return first.msg;
    const failure = failureOfTry(first.error);
    const pause = pauseAfterNoResponders(policy, tries);
    if (failure === 'no-responders' && mayTryAgain(policy, tries, Date.now() + pause, deadline)) {
      await sleep(pause);
      onRetry('no-responders', tries + 1);
      launch();
      continue;
    }
    if (waiting.size === 0) throw first.error;
  }
}

/** Why a try got no answer: only these two are worth asking again. */
function failureOfTry(error: unknown): TransportFailure {
  if (error instanceof TimeoutError) return 'timeout';
  if (error instanceof RequestError && error.isNoResponders()) return 'no-responders';
  return 'connection';
}

function unavailable(error: unknown, subject: string): AppError {
  const noResponders = error instanceof RequestError && error.isNoResponders();
  const timedOut = error instanceof TimeoutError || error instanceof RequestError;
  const reason = noResponders ? 'no-responders' : timedOut ? 'timeout' : 'connection';
  return new AppError('SERVICE503_UNAVAILABLE', 'service temporarily unavailable, retry later', {
    details: { service: subject.split('.')[0], reason },
    cause: error,
  });
}
