import { DashboardRoles, type DashboardRole } from '@dzpay/accounts';
import Fastify from 'fastify';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { buildDashboardApp } from '../src/app.ts';
import { hasPermissionRow, servedRoutes } from '../src/kit.ts';
import { signedInPage } from '../src/layout.ts';
import { allows, DEFAULT_ROLES, PERMISSIONS, rolesFor } from '../src/permissions.ts';
import { DEFAULT_DASHBOARD_SETTINGS, type DashboardDeps } from '../src/settings.ts';

/**
 * The permission matrix (docs/team.md), written out a second time on purpose: a change of
 * permissions.ts that this list does not share fails here. Concrete paths, as a browser
 * asks for them; one row per kind of page and action.
 */
const O = 'owner';
const A = 'admin';
const D = 'developer';
const C = 'accountant';
const ID = '7b0c9a52-4f8e-4d7b-9a53-3f1d2c4b5a61';
const MATRIX: [method: 'GET' | 'POST', path: string, roles: DashboardRole[]][] = [
  ['GET', '/dashboard', [O, A, D, C]],
  ['POST', '/dashboard/mode', [O, A, D, C]],
  ['POST', '/dashboard/language', [O, A, D, C]],
  ['POST', '/dashboard/logout', [O, A, D, C]],
  ['POST', '/dashboard/logout-everywhere', [O, A, D, C]],
  ['GET', '/dashboard/payments', [O, A, D, C]],
  ['GET', '/dashboard/payments/export', [O, A, D, C]],
  ['GET', `/dashboard/payments/${ID}`, [O, A, D, C]],
  ['POST', `/dashboard/payments/${ID}/refund/confirm`, [O, A]],
  ['POST', `/dashboard/payments/${ID}/refund`, [O, A]],
  ['POST', `/dashboard/payments/${ID}/cancel`, [O, A]],
  ['POST', `/dashboard/payments/${ID}/receipt`, [O, A]],
  ['POST', `/dashboard/payments/${ID}/deliveries/${ID}/replay`, [O, A, D]],
  ['GET', '/dashboard/payment-links', [O, A, D, C]],
  ['GET', `/dashboard/payment-links/${ID}`, [O, A, D, C]],
  ['POST', '/dashboard/payment-links', [O, A]],
  ['POST', `/dashboard/payment-links/${ID}/deactivate`, [O, A]],
  ['GET', '/dashboard/qr-codes', [O, A, D, C]],
  ['GET', '/dashboard/qr-codes/SHOP-1/image', [O, A, D, C]],
  ['POST', '/dashboard/qr-codes/SHOP-1/set', [O, A, D]],
  ['POST', '/dashboard/qr-codes/SHOP-1/unset', [O, A, D]],
  ['GET', '/dashboard/report', [O, A, C]],
  ['GET', '/dashboard/report/export', [O, A, C]],
  ['GET', '/dashboard/balance', [O, A, C]],
  ['GET', '/dashboard/balance/statement', [O, A, C]],
  ['GET', '/dashboard/audit', [O, A, C]],
  ['GET', '/dashboard/webhooks', [O, A, D]],
  ['POST', '/dashboard/webhooks', [O, A, D]],
  ['POST', '/dashboard/webhooks/rotate', [O, A, D]],
  ['POST', '/dashboard/webhooks/test', [O, A, D]],
  ['GET', '/dashboard/webhooks/deliveries', [O, A, D]],
  ['POST', `/dashboard/webhooks/deliveries/${ID}/resend`, [O, A, D]],
  ['GET', '/dashboard/api-keys', [O, A, D]],
  ['POST', '/dashboard/api-keys', [O, A, D]],
  ['GET', `/dashboard/api-keys/${ID}/revoke`, [O, A, D]],
  ['POST', `/dashboard/api-keys/${ID}/revoke`, [O, A, D]],
  ['GET', '/dashboard/team', [O, A, D, C]],
  ['POST', '/dashboard/team/invite', [O, A]],
  ['POST', `/dashboard/team/invites/${ID}/revoke`, [O, A]],
  ['POST', `/dashboard/team/users/${ID}/role`, [O, A]],
  ['POST', `/dashboard/team/users/${ID}/disable`, [O, A]],
  ['POST', `/dashboard/team/users/${ID}/enable`, [O, A]],
];

describe('the permission table', () => {
  for (const role of DashboardRoles) {
    it(`lets ${role} use exactly what the matrix says`, () => {
      for (const [method, path, roles] of MATRIX) {
        expect({ method, path, allowed: allows(role, method, path) }).toEqual({
          method,
          path,
          allowed: roles.includes(role),
        });
      }
    });
  }

  it('gives owners everything and accountants no form that changes anything', () => {
    for (const row of PERMISSIONS) {
      expect(row.roles).toContain('owner');
      expect(row.roles).toContain('admin');
    }
    const accountantPosts = PERMISSIONS.filter(
      (row) => row.method === 'POST' && row.roles.includes('accountant'),
    ).map((row) => row.path);
    // Only the session's own switches: mode, language, signing out.
    expect(accountantPosts).toEqual([
      '/dashboard/mode',
      '/dashboard/language',
      '/dashboard/logout',
      '/dashboard/logout-everywhere',
    ]);
  });

  it('refuses by default: a path with no row is for owners and admins only', () => {
    expect(DEFAULT_ROLES).toEqual(['owner', 'admin']);
    for (const [method, path] of [
      ['GET', '/dashboard/something-new'],
      ['POST', '/dashboard/payments'],
      ['GET', '/dashboard/team/export'],
    ] as const) {
      expect(rolesFor(method, path)).toEqual(['owner', 'admin']);
      expect(allows('developer', method, path)).toBe(false);
      expect(allows('accountant', method, path)).toBe(false);
    }
  });

  it('reads HEAD as GET, and a query or a trailing slash as the path itself', () => {
    expect(allows('accountant', 'HEAD', '/dashboard/report')).toBe(true);
    expect(allows('developer', 'GET', '/dashboard/report?from=2026-01-01')).toBe(false);
    expect(allows('accountant', 'GET', '/dashboard/audit/')).toBe(true);
  });
});

describe('every route the dashboard serves', () => {
  /** Pages reachable without a session: the guard cannot run on them, by design. */
  const PUBLIC = [
    /^\/dashboard\/login$/,
    /^\/dashboard\/invite\/:token$/,
    /^\/dashboard\/password-reset(\/.*)?$/,
  ];

  it('has a row of the permission table, or is one of the pages before sign-in', async () => {
    // Routes are only registered, never called: every dependency may be a stand-in that
    // answers any property (the parts others add to the deps included).
    const standIn: unknown = new Proxy(() => standIn, {
      get: (_target, key) => (key === 'then' ? undefined : standIn),
    });
    const settings = { ...DEFAULT_DASHBOARD_SETTINGS, cookieSecure: false };
    const deps = new Proxy({} as DashboardDeps, {
      get: (_target, key) => (key === 'settings' ? settings : standIn),
    });
    const app = await buildDashboardApp(
      { logger: Fastify().log, registry: new Registry(), trustProxyHops: 0 },
      deps,
    );
    await app.ready();
    const routes = servedRoutes(deps);
    // The pages of every part of the dashboard are there, not a handful.
    expect(routes.filter((route) => route.guarded).length).toBeGreaterThan(25);
    for (const route of routes) {
      if (route.guarded) {
        expect({ route, row: hasPermissionRow(route.method, route.url) }).toEqual({
          route,
          row: true,
        });
      } else {
        expect({ route, public: PUBLIC.some((p) => p.test(route.url)) }).toEqual({
          route,
          public: true,
        });
      }
    }
    await app.close();
  });
});

describe('the navigation', () => {
  const frame = (role?: DashboardRole) => ({
    language: 'en' as const,
    merchantName: 'Librairie',
    mode: 'test' as const,
    csrfToken: 'tok',
    path: '/dashboard/payments',
    ...(role ? { role } : {}),
  });
  const links = (html: string) =>
    [...html.matchAll(/<li><a href="([^"]+)"/g)].map((match) => match[1]);

  it('lists only the pages the role may open', () => {
    expect(links(signedInPage(frame('owner'), 'x', ''))).toEqual([
      '/dashboard/payments',
      '/dashboard/payment-links',
      '/dashboard/qr-codes',
      '/dashboard/balance',
      '/dashboard/report',
      '/dashboard/webhooks',
      '/dashboard/api-keys',
      '/dashboard/team',
      '/dashboard/audit',
    ]);
    expect(links(signedInPage(frame('accountant'), 'x', ''))).toEqual([
      '/dashboard/payments',
      '/dashboard/payment-links',
      '/dashboard/qr-codes',
      '/dashboard/balance',
      '/dashboard/report',
      '/dashboard/team',
      '/dashboard/audit',
    ]);
    expect(links(signedInPage(frame('developer'), 'x', ''))).toEqual([
      '/dashboard/payments',
      '/dashboard/payment-links',
      '/dashboard/qr-codes',
      '/dashboard/webhooks',
      '/dashboard/api-keys',
      '/dashboard/team',
    ]);
  });

  it('lists what every role may open when the role is not known', () => {
    expect(links(signedInPage(frame(), 'x', ''))).toEqual([
      '/dashboard/payments',
      '/dashboard/payment-links',
      '/dashboard/qr-codes',
      '/dashboard/team',
    ]);
  });
});
