import { httpStatusOf, type ErrorCode, type StandardError } from '@dzpay/contracts';
import { isAppError } from '@dzpay/platform';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { problemPage } from '../../pages/checkout-page.ts';
import { languageOf, sendPage } from './page-reply.ts';

/**
 * Which error shape a route answers 400s in. The QR configuration endpoints use the
 * validation list; everything else the standard envelope.
 */
type Envelope = 'standard' | 'validation-list' | 'html';

declare module 'fastify' {
  interface FastifyContextConfig {
    envelope?: Envelope;
  }
}

/** One broken rule, for the standard envelope's details.failures. */
interface Failure {
  field: string;
  message: string;
}

/**
 * A body that broke one or more rules. The messages are the spec's wording (the QR
 * endpoints' validation list); failures name the field too (the payments API).
 */
export class ValidationFailure extends Error {
  readonly messages: string[];
  readonly failures: Failure[];
  constructor(messages: string[], failures?: Failure[]) {
    super(messages.join('; '));
    this.name = 'ValidationFailure';
    this.messages = messages;
    this.failures = failures ?? messages.map((message) => ({ field: 'body', message }));
  }

  static of(failures: Failure[]): ValidationFailure {
    return new ValidationFailure(
      failures.map((failure) => failure.message),
      failures,
    );
  }
}

function standardError(
  code: ErrorCode,
  message: string,
  details?: Record<string, unknown>,
): StandardError {
  return {
    statusCode: httpStatusOf(code),
    message,
    errorCode: code,
    timestamp: new Date().toISOString(),
    ...(details ? { details } : {}),
  };
}

/** What fastify's body parsing says, in words a merchant's developer can act on. */
function bodyProblem(error: FastifyError): string | null {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Content-Type must be application/json';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'request body should not be empty';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'request body is too large';
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'Content-Length does not match the body';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'request body must be valid JSON';
    default:
      return null;
  }
}

/**
 * One place turns every failure into the spec's envelopes. 5xx answers never carry
 * internals; they are logged with the request id instead.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler(sendNotFound);
  refuseTunnels(app);

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const envelope = request.routeOptions.config.envelope ?? 'standard';
    if (envelope === 'html') return sendProblemPage(request, reply, error);

    if (error instanceof ValidationFailure) return sendValidation(reply, envelope, error);
    if (isAppError(error)) {
      if (httpStatusOf(error.code) >= 500) request.log.warn({ err: error }, 'dependency failed');
      const retryAfter = error.details?.retryAfterSeconds;
      if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
      return reply
        .code(httpStatusOf(error.code))
        .send(standardError(error.code, error.message, error.details));
    }
    if (error.statusCode === 429) {
      return reply.code(429).send({ statusCode: 429, message: error.message });
    }
    const problem = bodyProblem(error);
    if (problem) return sendValidation(reply, envelope, new ValidationFailure([problem]));
    const clientStatus = clientStatusOf(error);
    if (clientStatus === 403 || clientStatus === 404) return sendNotFound(request, reply);
    if (clientStatus !== null) {
      return sendValidation(reply, envelope, new ValidationFailure(['the request cannot be read']));
    }

    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send(standardError('INTERNAL500_ERROR', 'internal error'));
  });
}

function sendNotFound(request: FastifyRequest, reply: FastifyReply) {
  return reply
    .code(404)
    .send(standardError('ROUTE404_NOT_FOUND', `no route ${request.method} ${request.url}`));
}

/**
 * The 4xx status Fastify or a plugin gave an error of the caller's making (a file path
 * outside the docs' root, a media type no parser takes), else null. Only errors that
 * are neither ours nor a bug: those have no statusCode, or a 5xx one.
 */
function clientStatusOf(error: FastifyError): number | null {
  if (isAppError(error) || error instanceof ValidationFailure) return null;
  const status = error.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : null;
}

/** Payers get a page in their language, never a JSON envelope. */
function sendProblemPage(request: FastifyRequest, reply: FastifyReply, error: FastifyError) {
  const language = languageOf((request.query as { lang?: string } | undefined)?.lang);
  const clientStatus = clientStatusOf(error);
  if ((isAppError(error) && httpStatusOf(error.code) === 404) || clientStatus === 404) {
    return sendPage(reply, problemPage('notFound', language), 404);
  }
  // A payer's address past its page limit: said so, with the limiter's retry-after.
  if (clientStatus === 429) return sendPage(reply, problemPage('tooManyRequests', language), 429);
  // A body the page cannot read (too large, another media type) is the sender's doing,
  // not an outage: 400, with no hint to retry.
  if (clientStatus !== null || error instanceof ValidationFailure) {
    return sendPage(reply, problemPage('badRequest', language), 400);
  }
  if (!isAppError(error) || httpStatusOf(error.code) >= 500) {
    request.log.error({ err: error }, 'payer page failed');
  }
  return sendPage(reply, problemPage('error', language), 503);
}

function sendValidation(reply: FastifyReply, envelope: Envelope, failure: ValidationFailure) {
  if (envelope === 'validation-list') {
    return reply
      .code(400)
      .send({ statusCode: 400, message: failure.messages, error: 'Bad Request' });
  }
  return reply.code(400).send(
    standardError('VALIDATION400_BAD_REQUEST', 'request validation failed', {
      failures: failure.failures,
    }),
  );
}

/**
 * What a request the HTTP parser refuses gets (malformed request line or headers,
 * headers past the size limit, a request not received in time): the standard envelope
 * as a 400, where Fastify's default writes its own shape. Pass it to Fastify() as
 * `clientErrorHandler`. The connection is closed after it: its stream cannot be trusted.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const why =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? 'request headers are too large'
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'request was not received in time'
          : 'request is not valid HTTP';
    const body = JSON.stringify(
      standardError('VALIDATION400_BAD_REQUEST', why, {
        failures: [{ field: 'request', message: why }],
      }),
    );
    socket.write(rawAnswer('400 Bad Request', body));
  }
  socket.destroy();
}

/** A whole HTTP/1.1 answer for a socket no Fastify reply exists for; the connection ends after it. */
function rawAnswer(statusLine: string, body: string): string {
  return (
    `HTTP/1.1 ${statusLine}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    'Connection: close\r\n\r\n' +
    body
  );
}

/**
 * CONNECT asks for a tunnel, which dzpay never opens. Node's server hands such requests
 * to 'connect' listeners only, and closes the connection without a word when there is
 * none: with this one the caller gets the same 404 as for any other route that is not.
 */
function refuseTunnels(app: FastifyInstance): void {
  app.server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    const body = JSON.stringify(
      standardError('ROUTE404_NOT_FOUND', `no route CONNECT ${request.url ?? ''}`),
    );
    socket.on('error', () => socket.destroy());
    // Destroyed once the answer is out, not merely ended: a tunnel request's body keeps
    // arriving on a socket nobody reads, which would hold it (and a graceful shutdown)
    // open for as long as the caller likes.
    socket.write(rawAnswer('404 Not Found', body), () => socket.destroy());
  });
}

/**
 * Errors Fastify's router answers before any route runs: a URL whose percent-encoding
 * is broken (FST_ERR_BAD_URL), a parameter past maxParamLength. Pass it to Fastify() as
 * `frameworkErrors`: the standard envelope instead of Fastify's shape, without echoing
 * the URL.
 */
export function frameworkErrors(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const message =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'a path segment is too long'
      : 'the URL is not validly percent-encoded';
  const failure = new ValidationFailure([message], [{ field: 'url', message }]);
  // Payers' pages answer in HTML even here: the route is not known yet, so the path says.
  if (/^\/(checkout|pay|qr)\//.test(request.raw.url ?? '')) {
    void sendPage(reply, problemPage('badRequest', 'fr'), 400);
    return;
  }
  void sendValidation(reply, 'standard', failure);
}
