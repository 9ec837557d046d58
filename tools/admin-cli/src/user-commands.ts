import { z } from 'zod';
import { Command, InvalidArgumentError } from 'commander';
import {
  type DashboardRole,
  type DashboardUsers,
  DashboardRoles,
  cleanEmail,
  isDashboardRole,
  hashPassword,
  PASSWORD_MAX,
  PASSWORD_MIN,
  passwordProblem,
} from '@dzpay/accounts';

export interface UserCommandsDeps {
  /** The dashboard users of the accounts schema (migrated). */
  users: () => Promise<DashboardUsers>;
  /** DZPAY_USER_PASSWORD: never an argument, so it stays out of shell history and `ps`. */
  password: () => string | undefined;
  print: (text: string) => void;
}

function uuid(value: string): string {
  if (!z.uuid().safeParse(value).success) throw new InvalidArgumentError('must be a UUID');
  return value;
}

function role(value: string): DashboardRole {
  const clean = value.trim().toLowerCase();
  if (!isDashboardRole(clean)) {
    throw new InvalidArgumentError(`must be one of ${DashboardRoles.join(', ')}`);
  }
  return clean;
}

function email(value: string): string {
  const clean = cleanEmail(value);
  if (!clean) throw new InvalidArgumentError('must be an email address');
  return clean;
}

/**
 * `dzpay user …`: the merchants' dashboard users. The first user of a merchant is made
 * here; the others are invited from the dashboard's Team page.
 */
export function addUserCommands(program: Command, deps: UserCommandsDeps): void {
  const fail = (message: string): never => program.error(message, { exitCode: 1 });
  const out = (value: unknown, text: string) =>
    deps.print(program.opts<{ json?: boolean }>().json ? JSON.stringify(value) : text);

  const user = program.command('user').description('manage merchant dashboard users');

  user
    .command('create')
    .description('create a dashboard user; the password is read from DZPAY_USER_PASSWORD')
    .argument('<merchantId>', 'the merchant the user works for', uuid)
    .argument('<email>', 'what the user signs in with', email)
    .option(
      '--role <role>',
      `what the user may do: ${DashboardRoles.join(', ')} (docs/team.md)`,
      role,
      'owner' as DashboardRole,
    )
    .action(async (merchantId: string, address: string, options: { role: DashboardRole }) => {
      const password = deps.password();
      const problem = passwordProblem(password);
      if (!password) fail('set DZPAY_USER_PASSWORD to the new user’s password');
      if (problem === 'tooShort')
        fail(`the password must have at least ${PASSWORD_MIN} characters`);
      if (problem === 'tooLong') fail(`the password must have at most ${PASSWORD_MAX} characters`);
      const users = await deps.users();
      const created = await users.create(
        merchantId,
        address,
        await hashPassword(password!),
        options.role,
      );
      if ('problem' in created) {
        if (created.problem === 'email-taken') fail(`${address} already has a dashboard user`);
        fail(`no merchant ${merchantId}`);
      }
      const { user: made } = created as Exclude<typeof created, { problem: unknown }>;
      out(
        { id: made.id, merchantId: made.merchantId, email: made.email, role: made.role },
        `dashboard user ${made.id} created: ${made.email}, ${made.role} (merchant ${made.merchantId})`,
      );
    });

  user
    .command('list')
    .description("a merchant's dashboard users")
    .argument('<merchantId>', 'the merchant', uuid)
    .action(async (merchantId: string) => {
      const users = await (await deps.users()).listOfMerchant(merchantId);
      out(
        users.map((u) => ({
          id: u.id,
          email: u.email,
          role: u.role,
          createdAt: u.createdAt.toISOString(),
          disabledAt: u.disabledAt?.toISOString() ?? null,
        })),
        users.length
          ? users
              .map((u) => `${u.id}  ${u.email}  ${u.role}  ${u.disabledAt ? 'disabled' : 'active'}`)
              .join('\n')
          : 'no dashboard user',
      );
    });

  user
    .command('disable')
    .description(
      'stop a dashboard user from signing in (their open sessions end at once) and revoke the API keys they issued',
    )
    .argument('<email>', 'the user', email)
    .action(async (address: string) => {
      const disabled = await (await deps.users()).disable(address);
      if (!disabled) fail(`no dashboard user ${address}`);
      const { user, keysRevoked } = disabled!;
      out(
        { id: user.id, email: user.email, disabledAt: user.disabledAt, keysRevoked },
        `dashboard user ${user.email} disabled; API keys they issued revoked: ${keysRevoked}`,
      );
    });
}

/** The user commands alone, as `dzpay` parses them (tests drive this one). */
export function userProgram(deps: UserCommandsDeps): Command {
  const program = new Command('dzpay').option('--json', 'print results as JSON').exitOverride();
  addUserCommands(program, deps);
  return program;
}
