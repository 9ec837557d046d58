import { randomBytes } from 'node:crypto';
import {
  authorizationBlock,
  NATS_USERS,
  type DurableNames,
  type NatsUser,
} from './nats-permissions.ts';

// The users of a NATS that a test, the campaign or `pnpm start` runs for itself: a fresh
// password each, the server's authorization block, and each process' variables.

export interface NatsCredentials {
  user: string;
  password: string;
}

export interface LocalNatsUsers {
  prefix: string;
  /** Each role's user; a service connects as its own. */
  users: Record<NatsUser, NatsCredentials>;
  /** Unrestricted, for the harness only (stream listings, cluster health); never a service's. */
  admin: NatsCredentials;
  /** The `authorization {}` block for the server's configuration. */
  authorization: string;
  /** NATS_USER and NATS_PASSWORD of a process acting as `user`. */
  envOf(user: NatsUser): { NATS_USER: string; NATS_PASSWORD: string };
}

const password = () => randomBytes(18).toString('base64url');

/** New users for a deployment whose subjects carry `prefix`. */
export function localNatsUsers(
  prefix: string,
  options: { durables?: DurableNames; known?: Partial<Record<NatsUser | 'admin', string>> } = {},
): LocalNatsUsers {
  const passwordOf = (user: NatsUser | 'admin') => options.known?.[user] ?? password();
  const users = Object.fromEntries(
    NATS_USERS.map((user) => [user, { user, password: passwordOf(user) }]),
  ) as Record<NatsUser, NatsCredentials>;
  const admin = { user: 'admin', password: passwordOf('admin') };
  return {
    prefix,
    users,
    admin,
    authorization: authorizationBlock({
      prefix,
      password: (user) => users[user].password,
      ...(options.durables ? { durables: options.durables } : {}),
      admin,
    }),
    envOf: (user) => ({ NATS_USER: users[user].user, NATS_PASSWORD: users[user].password }),
  };
}
