import { BaseEnv } from '@dzpay/platform';
import { z } from 'zod';

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const flag = z
  .enum(['true', '1', 'false', '0'])
  .transform((value) => value === 'true' || value === '1');

/**
 * The sandbox needs no database, NATS or ops port, so it takes only the log level from
 * the shared environment.
 */
export const SandboxEnv = z.object({
  LOG_LEVEL: BaseEnv.shape.LOG_LEVEL,
  /** Port of the REST API and the card form; 0 picks a free port. */
  SANDBOX_PORT: z.coerce.number().int().min(0).max(65535).default(8600),
  SANDBOX_HOST: z.string().default('0.0.0.0'),
  /** Base URL the payer's browser reaches the sandbox at (put in formUrl); default http://127.0.0.1:<port>. */
  SANDBOX_PUBLIC_URL: z.url().optional(),
  /** The merchant credentials register.do and the other calls must present. */
  SANDBOX_USERNAME: z.string().min(1).default('sandbox'),
  SANDBOX_PASSWORD: z.string().min(1).default('sandbox'),
  /** How long confirmOrder.do keeps the "timeout at confirmation" card waiting. */
  SANDBOX_CONFIRM_DELAY_MS: z.coerce.number().int().min(0).default(30_000),
  /**
   * The control API for tests under /_control/ (fault injection, ledger, call stats).
   * Off unless set: anyone who reaches it can change how the network behaves.
   */
  SANDBOX_CONTROL: flag.default(false),
  /**
   * Whether getOrderStatusExtended.do lists each refund (`refunds`): BPC returns it only
   * from some status versions, so a client must also work without it.
   */
  SANDBOX_STATUS_REFUNDS: flag.default(true),
  /**
   * The IANA time zone the merchant's dates are read in (getLastOrdersForMerchants'
   * `from` and `to`): SATIM's is Algeria's.
   */
  SANDBOX_TIME_ZONE: z
    .string()
    .refine(isTimeZone, { message: 'an IANA time zone, such as Africa/Algiers' })
    .default('Africa/Algiers'),
});
export type SandboxEnv = z.infer<typeof SandboxEnv>;
