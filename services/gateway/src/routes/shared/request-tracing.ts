import { contextOf } from '@dzpay/platform';
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span (a no-op span when tracing is off). */
    span: Span | null;
  }
}

/**
 * One server span per public request, continuing a caller's `traceparent` if it sent
 * one. The rest of the request (hooks, handler, NATS requests) runs in its context, so
 * everything dzpay does for it joins the same trace. Named by route pattern, never by
 * the URL, which may carry a checkout token.
 */
export function traceRequests(app: FastifyInstance): void {
  app.decorateRequest('span', null);
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const parent = contextOf(request.headers);
    const span = trace.getTracer('dzpay').startSpan(
      `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': request.method, 'http.route': route },
      },
      parent,
    );
    request.span = span;
    context.with(trace.setSpan(parent, span), done);
  });
  app.addHook('onResponse', async (request, reply) => {
    request.span?.setAttribute('http.response.status_code', reply.statusCode);
    if (reply.statusCode >= 500) request.span?.setStatus({ code: SpanStatusCode.ERROR });
    request.span?.end();
  });
}
