import { trace } from '@opentelemetry/api';
import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * Paths pino blanks out wherever they appear in a log line. API keys, partner secrets,
 * card data and passwords must never reach a log, even by accident in an error object.
 */
const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'headers.authorization',
  '*.apiKey',
  '*.apiSecret',
  '*.secret',
  '*.password',
  '*.pan',
  '*.cvv',
  '*.cvv2',
  'apiKey',
  'apiSecret',
  'secret',
  'password',
  // The bytes of a request Node could not parse (a client error): its URL may carry a
  // checkout token or an invitation link.
  'err.rawPacket',
];

export type { Logger };
/** Where a logger writes its lines (stdout when none is given). */
export type LogDestination = DestinationStream;

export function createLogger(service: string, level: string, destination?: LogDestination): Logger {
  const options = {
    name: service,
    level,
    base: { service },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // A line written while a span is active names its trace: logs and traces of one
    // request are found from each other.
    mixin: traceIds,
  };
  return destination ? pino(options, destination) : pino(options);
}

function traceIds(): Record<string, string> {
  const span = trace.getActiveSpan()?.spanContext();
  return span && span.traceId !== '00000000000000000000000000000000'
    ? { trace_id: span.traceId, span_id: span.spanId }
    : {};
}
