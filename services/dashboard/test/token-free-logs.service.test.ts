import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { dashboardUsers, hashPassword, passwordResets } from '@dzpay/accounts';
import { connectPostgres, type Sql } from '@dzpay/platform';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inviteTokenHash } from '../src/pages/auth-pages.ts';
import { issueResetToken } from '../src/pages/password-reset-token.ts';
import { startDashboard, type Dashboard } from '../src/service.ts';

// An invitation link and a password reset link are credentials in a URL: whoever reads
// one in the logs can use it while it is open. The whole dashboard runs here, its log at
// the most verbose level caught line by line, while both links are opened (also in ways
// no route matches) and used.

let infra: IsolatedInfra;
let sql: Sql;
let dashboard: Dashboard;
const lines: string[] = [];

beforeAll(async () => {
  infra = await isolatedInfra('dashboard-token-logs');
  const log = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  dashboard = await startDashboard(
    { ...infra.env, LOG_LEVEL: 'trace', DASHBOARD_COOKIE_SECURE: 'false', HTTP_PORT: '0' },
    { handleSignals: false, logDestination: log },
  );
  sql = connectPostgres(infra.databaseUrl, 'accounts', 2);
});
afterAll(async () => {
  await sql?.end();
  await dashboard?.runtime.stop();
  await infra?.cleanup();
});

/** A browser's part in it: cookies kept, the form's CSRF token read from the page. */
function visitor() {
  const cookies = new Map<string, string>();
  let csrf = '';
  const open = async (method: string, path: string, form?: Record<string, string>) => {
    const response = await fetch(`${dashboard.url}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: new URLSearchParams({ _csrf: csrf, ...form }).toString() } : {}),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const html = await response.text();
    csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? csrf;
    return response.status;
  };
  return { open };
}

async function merchantWithOwner(): Promise<{ merchantId: string; ownerId: string }> {
  const [row] = await sql<{ id: string }[]>`
    insert into merchants (name) values ('Librairie du port') returning id`;
  const created = await dashboardUsers(sql).create(
    row!.id,
    `owner-${randomBytes(4).toString('hex')}@shop.dz`,
    await hashPassword('the owner’s own passphrase'),
    'owner',
  );
  if ('problem' in created) throw new Error(created.problem);
  return { merchantId: row!.id, ownerId: created.user.id };
}

/** Every line written from now until `run` ends. */
async function linesDuring(run: () => Promise<void>): Promise<string[]> {
  const from = lines.length;
  await run();
  // The last request's line is written as its answer finishes.
  await new Promise((resolve) => setTimeout(resolve, 100));
  return lines.slice(from);
}

/** The ways a link's URL reaches the dashboard besides the page itself. */
const variants = (path: string) => [
  ['HEAD', path],
  ['GET', `${path}/`],
  ['PUT', path],
  ['GET', `${path}%zz`],
  ['GET', `/${path}`],
];

describe('the request log and every other line', () => {
  it('never carry an invitation link’s token, while it is opened and accepted', async () => {
    const { merchantId, ownerId } = await merchantWithOwner();
    const token = randomBytes(32).toString('base64url');
    await dashboardUsers(sql).createInvite({
      merchantId,
      email: 'new.colleague@shop.dz',
      role: 'accountant',
      tokenHash: inviteTokenHash(token),
      invitedBy: ownerId,
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    const path = `/dashboard/invite/${token}`;
    const invitee = visitor();

    const written = await linesDuring(async () => {
      for (const [method, url] of variants(path)) await invitee.open(method!, url!);
      expect(await invitee.open('GET', `${path}?lang=fr`)).toBe(200);
      expect(await invitee.open('POST', path, { lang: 'fr', password: 'short' })).toBe(400);
      expect(await invitee.open('POST', path, { lang: 'fr', password: 'a long passphrase' })).toBe(
        303,
      );
      // Used: the page says so, and that request is logged too.
      expect(await invitee.open('GET', path)).toBe(404);
    });

    // The requests were logged, by their route.
    expect(written.some((line) => line.includes('"route":"/dashboard/invite/:token"'))).toBe(true);
    expect(written.filter((line) => line.includes(token))).toEqual([]);
  });

  it('never carry a password reset link’s token, while it is opened and used', async () => {
    const { ownerId } = await merchantWithOwner();
    const link = issueResetToken(new Date());
    await passwordResets(sql).create({
      userId: ownerId,
      tokenHash: link.hash,
      createdAt: link.createdAt,
      expiresAt: link.expiresAt,
    });
    const path = `/dashboard/password-reset/${link.token}`;
    const owner = visitor();

    const written = await linesDuring(async () => {
      for (const [method, url] of variants(path)) await owner.open(method!, url!);
      expect(await owner.open('GET', `${path}?lang=en`)).toBe(200);
      expect(
        await owner.open('POST', path, { lang: 'en', password: 'a new long passphrase' }),
      ).toBe(200);
      expect(await owner.open('GET', path)).toBe(404);
    });

    expect(
      written.some((line) => line.includes('"route":"/dashboard/password-reset/:token"')),
    ).toBe(true);
    expect(written.filter((line) => line.includes(link.token))).toEqual([]);
  });
});
