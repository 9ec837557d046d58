import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * Fastify's request log lines carry the URL, and SATIM clients may put the password in
 * the query string (GET is allowed), so these lines name the route and never the URL.
 * Bodies (card forms) are never logged by Fastify anyway.
 */
export class RouteLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime),
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }

  override defaultErrorLog(error: Error, _request: FastifyRequest, reply: FastifyReply): void {
    if (reply.statusCode >= 500) reply.log.error({ err: error }, 'request failed');
    else reply.log.info({ status: reply.statusCode, error: error.message }, 'request refused');
  }

  override routeNotFound(request: FastifyRequest): void {
    request.log.info({ method: request.method }, 'route not found');
  }
}
