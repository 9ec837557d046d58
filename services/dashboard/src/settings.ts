import type { AccountsRepository, DashboardUsers, PasswordResets } from '@dzpay/accounts';
import type { Mailer, NatsConnection } from '@dzpay/platform';
import type { FormTokens } from './adapters/form-tokens.ts';
import type { DashboardSessions } from './adapters/sessions.ts';
import type { LoginThrottle } from './adapters/login-throttle-store.ts';
import type { PasswordResetThrottle } from './adapters/password-reset-throttle-store.ts';
import type { ResetMailing } from './pages/password-reset-mailing.ts';

/** The dashboard's settings (config.ts: DASHBOARD_*). */
export interface DashboardSettings {
  /** Secure cookies, so `__Host-` names (cookies.ts): on except in plain-HTTP tests. */
  cookieSecure: boolean;
  /** A session left unused this long ends (each request starts the count again). */
  sessionIdleSeconds: number;
  /** A session ends this long after sign-in whatever its use. */
  sessionMaxSeconds: number;
  /** How long an invitation link stays valid. */
  inviteHours: number;
}

export const DEFAULT_DASHBOARD_SETTINGS: DashboardSettings = {
  cookieSecure: true,
  sessionIdleSeconds: 2 * 3600,
  sessionMaxSeconds: 24 * 3600,
  inviteHours: 72,
};

/** Everything the dashboard's pages run on (wired in service.ts). */
export interface DashboardDeps {
  settings: DashboardSettings;
  users: DashboardUsers;
  sessions: DashboardSessions;
  /** The CSRF tokens of the sign-in and invitation forms, before any session. */
  formTokens: FormTokens;
  throttle: LoginThrottle;
  /** Forgotten passwords: the links (hashes), the asks' throttle, the mailing of links. */
  passwordReset: {
    resets: PasswordResets;
    throttle: PasswordResetThrottle;
    mailing: ResetMailing;
  };
  /** The mail server (SMTP_*): invitations and password reset links go through it. */
  mailer: Mailer;
  /** The accounts schema: merchants' terms, API keys and webhook settings. */
  accounts: AccountsRepository;
  /** The back-end services are asked over NATS, as the gateway asks them. */
  nats: NatsConnection;
  natsPrefix: string;
  serviceTimeoutMs: number;
  /** Refunds and cancels wait for the card network: payments' longer timeout. */
  paymentsTimeoutMs: number;
  /** A receipt waits for payments and the mail server. */
  receiptsTimeoutMs: number;
  /** The gateway's public base URL: payers' QR links and invitation links. */
  publicBaseUrl: string;
  /** Seals the webhook signing secrets the pages make; absent, none can be made (503). */
  secretsKey?: Buffer;
  clock?: () => Date;
}
