import type { Sql } from '@dzpay/platform';
import type { DashboardApiKeys } from '../adapters/dashboard-api-keys.ts';
import type { DashboardSessions } from '../adapters/dashboard-sessions.ts';
import type { DashboardUsers } from '../adapters/dashboard-users.ts';
import type { LoginThrottle } from '../adapters/dashboard-login-throttle.ts';

/** The dashboard's settings (config.ts: DASHBOARD_*). */
export interface DashboardSettings {
  /** The session cookie's Secure flag: on except in plain-HTTP tests. */
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

/** What the dashboard needs beyond the API's own dependencies (wired in service.ts). */
export interface DashboardDeps {
  settings: DashboardSettings;
  users: DashboardUsers;
  sessions: DashboardSessions;
  apiKeys: DashboardApiKeys;
  throttle: LoginThrottle;
  /** The accounts schema's SQL pool, for pages that read it (webhook settings). */
  sql: Sql;
}
