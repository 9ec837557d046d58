import { SpanKind, trace } from '@opentelemetry/api';
import type postgres from 'postgres';
import { inSpan } from './tracing.ts';

type Sql = postgres.Sql;

// postgres.js has no OpenTelemetry instrumentation, so the pool is wrapped: every
// query a service awaits inside a trace becomes a `pg <statement>` span, and every
// transaction a `pg transaction` span around its queries. Background work outside any
// trace (pollers, sweeps) makes no spans: a database span is never a trace of its own.

const attributesOf = (strings: TemplateStringsArray) => ({
  'db.system.name': 'postgresql',
  // The statement with its parameters left out: values never reach a trace.
  'db.query.text': strings.join('$?').replace(/\s+/g, ' ').trim().slice(0, 500),
});

function isTemplateCall(args: unknown[]): args is [TemplateStringsArray, ...unknown[]] {
  return Array.isArray(args[0]) && 'raw' in (args[0] as object);
}

/** A query whose execution (when awaited) runs in a span of its own. */
function tracedQuery<Q extends PromiseLike<unknown>>(query: Q, strings: TemplateStringsArray): Q {
  const then = query.then.bind(query);
  const statement = /^\s*(\w+)/.exec(strings[0] ?? '')?.[1]?.toLowerCase() ?? 'query';
  (query as { then: PromiseLike<unknown>['then'] }).then = (onFulfilled, onRejected) =>
    inSpan(
      `pg ${statement}`,
      { kind: SpanKind.CLIENT, attributes: attributesOf(strings) },
      () => new Promise((resolve, reject) => void then(resolve, reject)),
    ).then(onFulfilled, onRejected);
  return query;
}

/** The pool (or a transaction) with its queries and transactions traced. */
export function tracedSql<S extends Sql>(sql: S): S {
  return new Proxy(sql, {
    apply(target, thisArg, args: unknown[]) {
      const result: unknown = Reflect.apply(target, thisArg, args);
      const isQuery =
        isTemplateCall(args) &&
        typeof (result as PromiseLike<unknown>)?.then === 'function' &&
        trace.getActiveSpan() !== undefined;
      return isQuery ? tracedQuery(result as PromiseLike<unknown>, args[0]) : result;
    },
    get(target, property, receiver) {
      if (property !== 'begin') return Reflect.get(target, property, receiver) as unknown;
      if (trace.getActiveSpan() === undefined)
        return Reflect.get(target, property, receiver) as unknown;
      return (...args: unknown[]) => {
        const work = args.at(-1) as (tx: Sql) => unknown;
        const rest = args.slice(0, -1);
        return inSpan('pg transaction', { kind: SpanKind.CLIENT }, () =>
          (target.begin as (...a: unknown[]) => Promise<unknown>)(...rest, (tx: Sql) =>
            work(tracedSql(tx)),
          ),
        );
      };
    },
  });
}
