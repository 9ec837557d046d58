import { z } from 'zod';
import { ErrorCatalog, PartnerErrorCatalog } from './errors.ts';

const errorCodes = Object.keys(ErrorCatalog) as [keyof typeof ErrorCatalog];

/** Most errors. Clients branch on errorCode; message wording may change. */
export const StandardError = z.object({
  statusCode: z.number().int(),
  message: z.string(),
  errorCode: z.enum(errorCodes),
  timestamp: z.iso.datetime(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type StandardError = z.infer<typeof StandardError>;

/** 400 on the QR configuration endpoints: one message per failed rule. */
export const ValidationList = z.object({
  statusCode: z.literal(400),
  message: z.array(z.string()).min(1),
  error: z.string(),
});
export type ValidationList = z.infer<typeof ValidationList>;

/** 429 where the spec asks for the bare shape. */
export const RateLimitError = z.object({
  statusCode: z.literal(429),
  message: z.string(),
});
export type RateLimitError = z.infer<typeof RateLimitError>;

/** What a partner's own endpoints answer with when they fail. */
export const PartnerError = z.object({
  error: z.enum(Object.keys(PartnerErrorCatalog) as [keyof typeof PartnerErrorCatalog]),
  errorMessage: z.string(),
});
export type PartnerError = z.infer<typeof PartnerError>;

/** Success bodies: `statusCode` and `message`, with `data` where there is one. */
export const MessageResponse = z.object({
  statusCode: z.number().int(),
  message: z.string(),
});
export type MessageResponse = z.infer<typeof MessageResponse>;
