import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { exists, readText } from './support/repository.ts';

// The one Dockerfile builds an image for any workspace app: each service and the admin
// CLI. No Docker engine runs here, so this reads it, and runs its start command's shell.

const dockerfile = readText('Dockerfile');
const pkg = JSON.parse(readText('package.json')) as { packageManager: string };

/** The file the image's CMD runs, for the given build arguments (its shell, `node` left out). */
function entryOf(args: { APP?: string; SERVICE?: string }): string {
  const cmd = /^CMD exec node (.+)$/m.exec(dockerfile)?.[1];
  expect(cmd, 'CMD exec node <entry>').toBeDefined();
  return execFileSync('sh', ['-c', `printf %s ${cmd}`], {
    env: { APP: args.APP ?? '', SERVICE: args.SERVICE ?? '' },
    encoding: 'utf8',
  });
}

/** Whether .dockerignore keeps `path` out of the build context (its patterns, as globs). */
function ignored(path: string): boolean {
  return readText('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .some((pattern) => {
      const glob = pattern
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*\*\//g, '\0')
        .replace(/\*/g, '[^/]*')
        .replace(/\0/g, '(.*/)?');
      return new RegExp(`^${glob}(/.*)?$`).test(path);
    });
}

describe('Dockerfile', () => {
  it('installs the pinned pnpm and the locked production dependencies', () => {
    expect(dockerfile).toMatch(/^FROM node:24|^ARG NODE_IMAGE=node:24/m);
    expect(dockerfile).toContain(pkg.packageManager);
    expect(dockerfile).toMatch(/pnpm install [^\n]*--frozen-lockfile/);
    expect(dockerfile).toMatch(/pnpm install [^\n]*--prod/);
    expect(dockerfile).toMatch(/--filter-prod "\{\.\/\$\{app\}\}\.\.\."/);
  });

  it('runs the app it was built for, a service by SERVICE or any app by APP', () => {
    expect(dockerfile).toMatch(/^ARG APP$/m);
    expect(dockerfile).toMatch(/^ARG SERVICE$/m);
    expect(entryOf({ SERVICE: 'gateway' })).toBe('services/gateway/src/main.ts');
    expect(entryOf({ SERVICE: 'dashboard' })).toBe('services/dashboard/src/main.ts');
    expect(entryOf({ APP: 'tools/admin-cli' })).toBe('tools/admin-cli/src/main.ts');
    expect(entryOf({ APP: 'services/payments', SERVICE: 'ignored' })).toBe(
      'services/payments/src/main.ts',
    );
    for (const entry of ['services/dashboard', 'tools/admin-cli']) {
      expect(exists(`${entry}/src/main.ts`), entry).toBe(true);
    }
  });

  it('runs as a non-root user and stops with SIGTERM', () => {
    const users = [...dockerfile.matchAll(/^USER (\S+)/gm)].map((m) => m[1]!);
    expect(users.at(-1)).toMatch(/^[1-9]\d*(:\d+)?$/);
    expect(dockerfile).toMatch(/^STOPSIGNAL SIGTERM$/m);
  });

  it('keeps node_modules and the git history out of the build context, and every app and migration in', () => {
    const lines = readText('.dockerignore').split('\n');
    expect(lines).toEqual(expect.arrayContaining(['**/node_modules', '.git']));
    expect(ignored('services/gateway/node_modules/x'), 'the check itself').toBe(true);
    expect(ignored('services/gateway/test/x.unit.test.ts'), 'the check itself').toBe(true);
    // The admin CLI's migrate, the gateway and the dashboard (the accounts schema, in
    // libs/accounts) find every schema's migrations by convention, whatever image they run from.
    for (const path of [
      'libs/accounts/migrations/001_accounts.sql',
      'services/payments/migrations',
      'services/dashboard/src/main.ts',
      'tools/admin-cli/src/main.ts',
      'libs/stack/src/migrations.ts',
      'pnpm-lock.yaml',
    ]) {
      expect(ignored(path), path).toBe(false);
    }
    expect(dockerfile, 'the whole tree').toMatch(/^COPY \. \.$/m);
  });
});
