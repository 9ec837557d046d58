import type { FastifyReply } from 'fastify';

/**
 * What a network outage, or a proxy in front of SATIM, answers: HTTP 503 with an HTML
 * page where the client expects JSON. Both the magic amount and the `unavailable` fault
 * send it.
 */
export function answerUnavailable(reply: FastifyReply): FastifyReply {
  return reply
    .code(503)
    .type('text/html')
    .send('<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>');
}
