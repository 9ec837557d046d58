import { LogController, type FastifyInstance, type FastifyRequest } from 'fastify';
import { Histogram, type Registry } from 'prom-client';

/**
 * For Fastify()'s `logController` beside observeHttpRequests: Fastify's own request lines
 * (incoming, completed, route not found) write the raw URL, and URLs carry credentials:
 * a payer's checkout token, an invitation or a password reset link. They are not
 * written; observeHttpRequests writes each request's line by its route pattern.
 */
export function urlFreeLogController(): LogController {
  return new LogController({ disableRequestLogging: true });
}

/**
 * Every answered request of a public HTTP service: its duration in
 * `dzpay_http_request_duration_seconds` (by method, route pattern and status) and one log
 * line. Both name the route pattern, never the URL, which may carry a payer's token.
 */
export function observeHttpRequests(
  app: FastifyInstance,
  registry: Registry,
  merchantOf: (request: FastifyRequest) => string | undefined = () => undefined,
): void {
  const duration = new Histogram({
    name: 'dzpay_http_request_duration_seconds',
    help: 'Public HTTP requests by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    duration.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    const merchantId = merchantOf(request);
    request.log.info(
      {
        method: request.method,
        route,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
        ...(merchantId ? { merchantId } : {}),
      },
      'request completed',
    );
  });
}
