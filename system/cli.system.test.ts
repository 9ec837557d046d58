import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { Kvm } from '@nats-io/kv';
import { accountsRepository } from '@dzpay/accounts';
import { PartnerDirectoryEntry, partnerDirectoryKey } from '@dzpay/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerBucketName } from '../services/gateway/src/adapters/partner-directory.ts';
import { ADMIN_CLI_ENTRY } from '@dzpay/testkit/processes';
import { startStack, type Stack } from './support/stack.ts';

const SECRETS_KEY = randomBytes(32).toString('base64');
const run = promisify(execFile);

let stack: Stack;
beforeAll(async () => {
  stack = await startStack('cli');
});
afterAll(() => stack?.stop());

async function dzpay(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [ADMIN_CLI_ENTRY, ...args], {
      env: { ...process.env, ...stack.infra.env, SECRETS_KEY },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const json = async <T>(...args: string[]): Promise<T> => {
  const result = await dzpay('--json', ...args);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
};

describe('pnpm dzpay (admin command line)', () => {
  it('creates a merchant, issues a key shown once, creates a QR code, and the key works', async () => {
    const merchant = await json<{ id: string; active: boolean }>(
      'merchant',
      'create',
      'Pâtisserie Ketchaoua',
    );
    expect(merchant.active).toBe(true);

    const issued = await json<{ id: string; key: string; mode: string }>(
      'key',
      'issue',
      merchant.id,
      '--mode',
      'test',
    );
    expect(issued.key).toMatch(/^pk_test_[A-Za-z0-9_-]{43}$/);

    const listed = await dzpay('key', 'list', merchant.id);
    expect(listed.stdout).toContain(issued.id);
    expect(listed.stdout).not.toContain(issued.key);

    const code = await json<{ token: string; mode: string }>('qr', 'create', merchant.id);
    expect(code.mode).toBe('test');
    const set = await stack.post(
      '/set-qr-config',
      { token: code.token, amounts: [250], singleUse: false },
      { 'x-api-key': issued.key },
    );
    expect(set.status).toBe(200);

    await json('key', 'revoke', issued.id, '--operator', 'amina');
    const after = await stack.post(
      '/set-qr-config',
      { token: code.token, amounts: [250], singleUse: false },
      { 'x-api-key': issued.key },
    );
    expect(after.status).toBe(401);

    // Both are in the merchant's audit log, by the operator who ran them.
    const events = await accountsRepository(stack.gateway.runtime.sql).auditPage({
      merchantId: merchant.id,
      limit: 10,
      actionPrefix: 'api_key.',
    });
    expect(events.map((event) => [event.action, event.actor.kind, event.mode])).toEqual([
      ['api_key.revoke', 'operator', 'test'],
      ['api_key.issue', 'operator', 'test'],
    ]);
    expect(events[0]!.actor.label).toBe('amina');
    expect(events[0]!.details).toEqual({ keyId: issued.id });
  });

  it('creates a QR code with a chosen token, once', async () => {
    const merchant = await json<{ id: string }>('merchant', 'create', 'Boucherie Sétif');
    const code = await json<{ token: string }>(
      'qr',
      'create',
      merchant.id,
      '--token',
      'SETIF-0001',
      '--mode',
      'live',
    );
    expect(code.token).toBe('SETIF-0001');
    const again = await dzpay('qr', 'create', merchant.id, '--token', 'SETIF-0001');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('QR_CODE409_ALREADY_EXISTS');
  });

  it('deactivates and reactivates a merchant', async () => {
    const merchant = await json<{ id: string }>('merchant', 'create', 'Épicerie Oran');
    await json('merchant', 'deactivate', merchant.id);
    const list = await json<{ id: string; active: boolean }[]>('merchant', 'list');
    expect(list.find((m) => m.id === merchant.id)?.active).toBe(false);
    await json('merchant', 'activate', merchant.id);
  });

  it("sets a merchant's receipt emails per hour, and refuses zero", async () => {
    const merchant = await json<{ id: string }>('merchant', 'create', 'Librairie Tlemcen');
    const [before] = await stack.gateway.runtime.sql<{ limit: number }[]>`
      select receipt_emails_per_hour as limit from merchants where id = ${merchant.id}`;
    expect(before!.limit).toBe(20);
    const updated = await json<{ receiptEmailsPerHour: number }>(
      'merchant',
      'configure',
      merchant.id,
      '--receipt-limit',
      '50',
    );
    expect(updated.receiptEmailsPerHour).toBe(50);
    const zero = await dzpay('merchant', 'configure', merchant.id, '--receipt-limit', '0');
    expect(zero.code).not.toBe(0);
    expect(zero.stderr).toContain('terms refused');
  });

  it("applies every service's migrations with `migrate`", async () => {
    const applied = await json<{ schemas: string[] }>('migrate');
    // Every schema once, in the stack's start order; the dashboard shares the gateway's.
    expect(applied.schemas).toEqual([
      'qr',
      'payments',
      'status',
      'webhooks',
      'receipts',
      'accounts',
    ]);
    const tables = await stack.gateway.runtime.sql<{ schema: string }[]>`
      select table_schema as schema from information_schema.tables
      where table_name = 'schema_migrations' order by table_schema`;
    expect(tables.map((row) => row.schema)).toEqual(
      expect.arrayContaining(['accounts', 'payments', 'qr', 'receipts', 'status', 'webhooks']),
    );
    // Again: nothing left to apply, nothing fails.
    expect((await json<{ schemas: string[] }>('migrate')).schemas).toHaveLength(6);
  });

  it('fails clearly on an unknown merchant, a bad id and a bad mode', async () => {
    const unknown = await dzpay('key', 'issue', '00000000-0000-4000-8000-000000000000');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no merchant');

    const badId = await dzpay('merchant', 'deactivate', 'not-a-uuid');
    expect(badId.code).not.toBe(0);
    expect(badId.stderr).toContain('must be a UUID');

    const badMode = await dzpay(
      'key',
      'issue',
      '00000000-0000-4000-8000-000000000000',
      '--mode',
      'prod',
    );
    expect(badMode.code).not.toBe(0);
    expect(badMode.stderr).toContain('Allowed choices are test, live');
  });

  it('refuses an API_URL that would cut off or redirect the paths dzpay appends', async () => {
    const merchant = await json<{ id: string }>('merchant', 'create', 'Partner with a query');
    for (const apiUrl of [
      'https://p.example/api?x=1',
      'https://p.example/api#f',
      'ftp://p.example',
    ]) {
      const result = await dzpay(
        'merchant',
        'partner',
        merchant.id,
        '--mode',
        'test',
        '--api-url',
        apiUrl,
        '--api-secret',
        's3cret',
      );
      expect(result.code, apiUrl).not.toBe(0);
      expect(result.stderr, apiUrl).toMatch(/api.?url/i);
    }
  });

  it("says where webhooks go: a merchant's own webhook URL keeps them unless --webhooks-to-partner", async () => {
    const shop = await stack.merchant('Merchant then partner');
    const put = await fetch(`${stack.gateway.url}/api/v1/webhooks/settings`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-api-key': shop.testKey },
      body: JSON.stringify({ url: 'https://shop.example/webhooks/platform' }),
    });
    expect(put.status).toBe(200);
    const partner = ['merchant', 'partner', shop.id, '--mode', 'test'];
    const server = ['--api-url', 'https://books.example/dzpay', '--api-secret', 's3cret'];
    const kept = await dzpay(...partner, ...server);
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain(
      "webhooks still go to https://shop.example/webhooks/platform, the merchant's own webhook URL, not to the partner",
    );
    expect(kept.stdout).toContain('--webhooks-to-partner');

    const moved = await json<{ webhooksTo: string }>(
      ...partner,
      ...server,
      '--webhooks-to-partner',
    );
    expect(moved.webhooksTo).toBe('https://books.example/dzpay/webhooks/platform');
    const settings = await stack.get('/api/v1/webhooks/settings', { 'x-api-key': shop.testKey });
    // The API says the same: where webhooks go is now the partner's default path.
    expect(((await settings.json()) as { data: { url: string | null } }).data.url).toBe(
      'https://books.example/dzpay/webhooks/platform',
    );
    const told = await dzpay(...partner, ...server);
    expect(told.stdout).toContain('webhooks go to https://books.example/dzpay/webhooks/platform');
  });

  it("sets a partner's server, shows a new signing secret once, and rotates it with a grace period", async () => {
    const merchant = await json<{ id: string }>(
      'merchant',
      'create',
      'Partner via ADMIN_CLI_ENTRY',
    );
    const set = await json<{ signingSecret: string }>(
      'merchant',
      'partner',
      merchant.id,
      '--mode',
      'test',
      '--api-url',
      'https://partner.example/api',
      '--api-secret',
      's3cret',
    );
    expect(set.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // Run again (a new URL): the signing secret stays, and is not shown again.
    const again = await json<{ apiUrl: string; signingSecret?: string }>(
      'merchant',
      'partner',
      merchant.id,
      '--mode',
      'test',
      '--api-url',
      'https://partner.example/v2',
      '--api-secret',
      's3cret',
    );
    expect(again.apiUrl).toBe('https://partner.example/v2');
    expect(again.signingSecret).toBeUndefined();
    const rotated = await json<{ signingSecret: string; previousValidUntil: string }>(
      'merchant',
      'rotate-signing-secret',
      merchant.id,
      '--mode',
      'test',
      '--grace-hours',
      '2',
    );
    expect(rotated.signingSecret).not.toBe(set.signingSecret);
    expect(Date.parse(rotated.previousValidUntil) - Date.now()).toBeGreaterThan(1.9 * 3600 * 1000);

    // The gateway hears of it and republishes the partner directory: both secrets valid.
    const kv = await new Kvm(stack.gateway.runtime.nats).open(
      partnerBucketName(stack.infra.natsPrefix),
    );
    const signingSecrets = async () => {
      const found = await kv.get(partnerDirectoryKey(merchant.id, 'test'));
      return found?.operation === 'PUT'
        ? PartnerDirectoryEntry.parse(found.json()).signingSecrets.length
        : 0;
    };
    await expect.poll(signingSecrets, { timeout: 5_000 }).toBe(2);

    const missing = await dzpay(
      'merchant',
      'rotate-signing-secret',
      '00000000-0000-4000-8000-000000000000',
    );
    expect(missing.code).toBe(1);
  });
});
