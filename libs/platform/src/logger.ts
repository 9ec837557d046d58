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
];

export type { Logger };

export function createLogger(
  service: string,
  level: string,
  destination?: DestinationStream,
): Logger {
  const options = {
    name: service,
    level,
    base: { service },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}
