import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ActiveUser } from '@dzpay/accounts';
import { KNOWN_DEVICE_DAYS } from './adapters/login-throttle-store.ts';
import type { SessionRecord } from './adapters/sessions.ts';
import { dashboardCookies } from './cookies.ts';
import type { DashboardSession } from './page-kit.ts';
import type { DashboardDeps } from './settings.ts';

/** A session found for a request: what Redis holds, and the user as Postgres says now. */
export interface ResolvedSession {
  cookieId: string;
  record: SessionRecord;
  user: ActiveUser;
}

/** Redis (or Postgres) did not answer: pages say so (503), never let the request through. */
export class DashboardUnavailable extends Error {
  constructor(cause: unknown) {
    super('dashboard storage unavailable', { cause });
    this.name = 'DashboardUnavailable';
  }
}

const resolved = new WeakMap<FastifyRequest, ResolvedSession>();

/** The session resolveSession found for this request, if any (error pages use it). */
export function sessionOfRequest(request: FastifyRequest): ResolvedSession | undefined {
  return resolved.get(request);
}

/**
 * The request's session, or null when there is none, it expired, or its user was
 * disabled or moved (the user is read from Postgres on every request, so disabling a
 * user or a merchant takes effect at once).
 */
export async function resolveSession(
  request: FastifyRequest,
  deps: DashboardDeps,
): Promise<ResolvedSession | null> {
  const cookieId = request.cookies[dashboardCookies(deps.settings.cookieSecure).session];
  if (!cookieId) return null;
  try {
    const record = await deps.sessions.read(cookieId);
    if (!record) return null;
    const user = await deps.users.findActive(record.userId, record.merchantId);
    if (!user) {
      await deps.sessions.destroy(cookieId, record.userId);
      return null;
    }
    const found = { cookieId, record, user };
    resolved.set(request, found);
    return found;
  } catch (error) {
    throw new DashboardUnavailable(error);
  }
}

export function sessionView(found: ResolvedSession): DashboardSession {
  return {
    // Pages get a name for the session, never the cookie's secret value.
    id: createHash('sha256').update(found.cookieId).digest('base64url').slice(0, 16),
    userId: found.user.id,
    email: found.user.email,
    merchantId: found.user.merchantId,
    merchantName: found.user.merchantName,
    mode: found.record.mode,
    language: found.record.language,
    csrfToken: found.record.csrfToken,
    role: found.user.role,
  };
}

export function cookieOptions(deps: DashboardDeps, maxAgeSeconds?: number) {
  return {
    path: dashboardCookies(deps.settings.cookieSecure).path,
    httpOnly: true,
    secure: deps.settings.cookieSecure,
    sameSite: 'lax' as const,
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  };
}

export function setSessionCookie(reply: FastifyReply, deps: DashboardDeps, id: string): void {
  const name = dashboardCookies(deps.settings.cookieSecure).session;
  void reply.setCookie(name, id, cookieOptions(deps, deps.settings.sessionMaxSeconds));
}

/** The device cookie the browser sent, if any (login-throttle-store.ts judges it). */
export function deviceCookieOf(request: FastifyRequest, deps: DashboardDeps): string | undefined {
  return request.cookies[dashboardCookies(deps.settings.cookieSecure).device];
}

export function setDeviceCookie(reply: FastifyReply, deps: DashboardDeps, token: string): void {
  const name = dashboardCookies(deps.settings.cookieSecure).device;
  void reply.setCookie(name, token, cookieOptions(deps, KNOWN_DEVICE_DAYS * 86_400));
}

export function clearSessionCookie(reply: FastifyReply, deps: DashboardDeps): void {
  void reply.clearCookie(dashboardCookies(deps.settings.cookieSecure).session, cookieOptions(deps));
}
