import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** `pnpm dzpay`'s entry point, for what runs the admin CLI as a process. */
export const ADMIN_CLI_ENTRY = fileURLToPath(
  new URL('../../../tools/admin-cli/src/main.ts', import.meta.url),
);

const run = promisify(execFile);

/**
 * `pnpm dzpay --json <args>` as an operator runs it, with `env` on top of this process's
 * environment; resolves with its JSON answer. `evenOnFailure`: a command that exits
 * non-zero with an answer (reconcile on an alarm) still resolves with it.
 */
export async function runAdminCli<T>(
  env: Record<string, string>,
  args: readonly string[],
  options: { evenOnFailure?: boolean } = {},
): Promise<T> {
  try {
    const { stdout } = await run(process.execPath, [ADMIN_CLI_ENTRY, '--json', ...args], {
      env: { ...process.env, ...env },
    });
    return JSON.parse(stdout) as T;
  } catch (error) {
    const failed = error as Error & { cmd?: string; stdout?: string; stderr?: string };
    if (options.evenOnFailure && failed.stdout) return JSON.parse(failed.stdout) as T;
    // A partner secret on the command line must not reach a failure message.
    const at = args.indexOf('--api-secret');
    const secret = at >= 0 ? args[at + 1] : undefined;
    const redact = (text: string) => (secret ? text.replaceAll(secret, '[secret]') : text);
    failed.message = redact(failed.message);
    if (failed.cmd) failed.cmd = redact(failed.cmd);
    if (failed.stack) failed.stack = redact(failed.stack);
    throw new Error(
      redact(
        `dzpay ${args.join(' ')} failed: ${failed.message}\n${failed.stderr ?? ''}${failed.stdout ?? ''}`,
      ),
      { cause: error },
    );
  }
}
