import { BaseEnv, smtpEnv } from '@dzpay/platform';
import { z } from 'zod';

export const DashboardEnv = BaseEnv.extend({
  OPS_PORT: z.coerce.number().int().min(0).max(65535).default(9107),
  /** The dashboard's HTTP port: the ingress sends /dashboard here. */
  HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(8081),
  HTTP_HOST: z.string().default('0.0.0.0'),
  /** Trust X-Forwarded-For from this many proxies (the ingress) when reading client IPs. */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).default(0),
  /** The gateway's public base URL: the payer links of QR codes, invitation links. */
  PUBLIC_BASE_URL: z.url().default('http://localhost:8080'),
  /** 32 random bytes, base64: seals the webhook signing secrets the pages make. */
  SECRETS_KEY: z.string().optional(),
  /** How long a page waits for a backing service before showing it unavailable. */
  SERVICE_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
  /** Refunds and cancels wait for the card network through payments. */
  PAYMENTS_TIMEOUT_MS: z.coerce.number().int().positive().default(12_000),
  /** A receipt waits for payments and then the mail server. */
  RECEIPTS_TIMEOUT_MS: z.coerce.number().int().positive().default(12_000),
  /**
   * The cookies carry the Secure flag (sent over HTTPS only) and so the `__Host-` prefix.
   * Turn it off only for plain-HTTP tests and local runs.
   */
  DASHBOARD_COOKIE_SECURE: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
  /** A session left unused this long ends. */
  DASHBOARD_SESSION_IDLE_MINUTES: z.coerce.number().int().positive().default(120),
  /** A session ends this long after sign-in, however busy. */
  DASHBOARD_SESSION_MAX_HOURS: z.coerce.number().int().positive().default(24),
  /** A password reset link works this long (once). */
  DASHBOARD_PASSWORD_RESET_MINUTES: z.coerce
    .number()
    .int()
    .min(5)
    .max(24 * 60)
    .default(30),
  // The mail server password reset links are handed to: usually receipts' relay.
  ...smtpEnv('dzpay <no-reply@dzpay.local>'),
});
export type DashboardEnv = z.infer<typeof DashboardEnv>;
