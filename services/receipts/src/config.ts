import { BaseEnv } from '@dzpay/platform';
import { z } from 'zod';

const flag = z.enum(['true', 'false']).transform((value) => value === 'true');

export const ReceiptsEnv = BaseEnv.extend({
  OPS_PORT: z.coerce.number().int().min(0).max(65535).default(9106),
  /** The mail server receipts are handed to. */
  SMTP_HOST: z.string().min(1).default('127.0.0.1'),
  SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(1025),
  /** TLS from the first byte (port 465). Otherwise STARTTLS is used when offered. */
  SMTP_SECURE: flag.default(false),
  /** Refuse to send unless the server upgrades the connection with STARTTLS. */
  SMTP_REQUIRE_TLS: flag.default(false),
  /** Check the server's certificate (off only for a development catcher). */
  SMTP_TLS_VERIFY: flag.default(true),
  SMTP_USER: z.string().min(1).optional(),
  SMTP_PASSWORD: z.string().min(1).optional(),
  /** The From of every receipt. */
  SMTP_FROM: z.string().min(3).default('dzpay receipts <receipts@dzpay.local>'),
  /** A mail server that takes longer than this (connecting, or answering a command) has failed. */
  SMTP_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
  /** Wait for payments' answer about the payment. */
  PAYMENTS_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
  /** The window receipt emails are counted in (an hour; shorter in tests). */
  RECEIPT_LIMIT_WINDOW_SECONDS: z.coerce.number().int().positive().default(3_600),
  /**
   * How many receipts replicas run (the Deployment's replica count). While Redis is
   * unreachable each counts the receipt limit in memory and allows its share, the
   * limit ÷ replicas rounded up.
   */
  RECEIPTS_REPLICAS: z.coerce.number().int().positive().default(1),
});
export type ReceiptsEnv = z.infer<typeof ReceiptsEnv>;
