import { httpStatusOf, type ErrorCode, type StandardError } from '@dzpay/contracts';
import { isAppError } from '@dzpay/platform';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { problemPage } from '../pages/checkout-page.ts';
import { languageOf, sendPage } from './checkout-routes.ts';

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
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(standardError('ROUTE404_NOT_FOUND', `no route ${request.method} ${request.url}`)),
  );

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

    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send(standardError('INTERNAL500_ERROR', 'internal error'));
  });
}

/** Payers get a page in their language, never a JSON envelope. */
function sendProblemPage(request: FastifyRequest, reply: FastifyReply, error: FastifyError) {
  const language = languageOf((request.query as { lang?: string } | undefined)?.lang);
  if (isAppError(error) && httpStatusOf(error.code) === 404) {
    return sendPage(reply, problemPage('notFound', language), 404);
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
