import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

/** The modules a plain `node` process resolves when it imports the entry point. */
function resolvedBy(entry: string): string[] {
  const script = `
    import { registerHooks } from 'node:module';
    const urls = [];
    registerHooks({ resolve(specifier, context, next) {
      const result = next(specifier, context);
      urls.push(result.url);
      return result;
    } });
    await import(${JSON.stringify(entry)});
    process.stdout.write(JSON.stringify(urls));`;
  // Run from the package itself so its own name resolves through package.json exports.
  const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: packageDir,
    encoding: 'utf8',
  });
  return JSON.parse(stdout) as string[];
}

describe('entry points for plain node command-line tools', () => {
  it.each(['@dzpay/testkit/servers', '@dzpay/testkit/databases'])(
    '%s does not load vitest',
    (entry) => {
      expect(resolvedBy(entry).filter((url) => url.includes('/vitest/'))).toEqual([]);
    },
  );

  it('the main entry point does (so the check above can fail)', () => {
    expect(resolvedBy('@dzpay/testkit').some((url) => url.includes('/vitest/'))).toBe(true);
  });
});
