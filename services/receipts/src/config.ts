import { BaseEnv, smtpEnv } from '@dzpay/platform';
import { z } from 'zod';

export const ReceiptsEnv = BaseEnv.extend({
  OPS_PORT: z.coerce.number().int().min(0).max(65535).default(9106),
  // The mail server receipts are handed to.
  ...smtpEnv('dzpay receipts <receipts@dzpay.local>'),
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
