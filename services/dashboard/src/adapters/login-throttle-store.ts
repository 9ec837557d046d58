import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from '@dzpay/platform';
import {
  LOGIN_LIMITS,
  loginVerdict,
  type ThrottleLimits,
  type ThrottleVerdict,
  type WindowCounts,
} from '../login-throttle.ts';
import { emailKey, fixedWindowCounter } from './fixed-window-counter.ts';

// Failed sign-ins per client address, per account and address, per account (from unknown
// devices), and per known device, each in a fixed window started by its first failure.
// Accounts appear as the SHA-256 of their email, so no address is stored in Redis; under
// the client's deployment prefix, like the API's `rate:` counters.
const ADDRESS = 'dashboard:login-fail:address:';
const ACCOUNT_ADDRESS = 'dashboard:login-fail:account-address:';
const ACCOUNT = 'dashboard:login-fail:account:';
const DEVICE_FAILURES = 'dashboard:login-fail:device:';
// The devices that signed in to an account: the SHA-256 of each device token, per account.
const KNOWN_DEVICE = 'dashboard:login-device:';

/** A device token as its cookie carries it: 32 random bytes, base64url. */
const DEVICE_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** How long a device stays known after its last sign-in to the account. */
export const KNOWN_DEVICE_DAYS = 90;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64url');

/**
 * The sign-in throttle. Every call may throw when Redis is down: the sign-in page then
 * refuses (503) rather than allow unlimited guesses. A Redis that lost its keys forgets
 * known devices too: their owners are then counted as anyone else, never locked out by
 * it.
 */
export function loginThrottle(redis: Redis, limits: ThrottleLimits = LOGIN_LIMITS) {
  const counter = fixedWindowCounter(redis);
  const account = (email: string) => emailKey('', email);
  const keysOf = (email: string, address: string) => ({
    address: ADDRESS + address,
    accountAddress: `${ACCOUNT_ADDRESS}${account(email)}:${address}`,
    account: ACCOUNT + account(email),
  });
  const deviceKey = (email: string, device: string) =>
    `${KNOWN_DEVICE}${account(email)}:${sha256(device)}`;
  const deviceFailures = (email: string, device: string) =>
    `${DEVICE_FAILURES}${account(email)}:${sha256(device)}`;

  async function windowOf(key: string): Promise<WindowCounts> {
    const [count, ttl] = await Promise.all([redis.get(key), redis.ttl(key)]);
    return { count: Number(count ?? 0), ttlSeconds: ttl };
  }

  /** The device token, when it names a device that signed in to this account. */
  async function knownDevice(email: string, device: string | undefined): Promise<string | null> {
    if (device === undefined || !DEVICE_TOKEN.test(device)) return null;
    return (await redis.exists(deviceKey(email, device))) === 1 ? device : null;
  }

  return {
    limits,

    /** `device`: the device cookie the browser sent, if any. */
    async check(email: string, address: string, device?: string): Promise<ThrottleVerdict> {
      const known = await knownDevice(email, device);
      if (known !== null) {
        return loginVerdict(
          { knownDevice: true, device: await windowOf(deviceFailures(email, known)) },
          limits,
        );
      }
      const keys = keysOf(email, address);
      const [byAddress, accountAddress, byAccount] = await Promise.all([
        windowOf(keys.address),
        windowOf(keys.accountAddress),
        windowOf(keys.account),
      ]);
      return loginVerdict(
        { knownDevice: false, address: byAddress, accountAddress, account: byAccount },
        limits,
      );
    },

    /** A failure counts against the known device alone, or against every other counter. */
    async recordFailure(email: string, address: string, device?: string): Promise<void> {
      const known = await knownDevice(email, device);
      const keys =
        known !== null ? [deviceFailures(email, known)] : Object.values(keysOf(email, address));
      await Promise.all(keys.map((key) => counter.count(key, limits.windowSeconds)));
    },

    /**
     * A successful sign-in clears what this place counted against the account (not the
     * address's count, nor the account's from elsewhere) and makes the device known:
     * answers the device token to set in its cookie (the one it had, or a new one).
     */
    async recordSuccess(email: string, address: string, device?: string): Promise<string> {
      const token = device !== undefined && DEVICE_TOKEN.test(device) ? device : newDeviceToken();
      await Promise.all([
        redis.del(keysOf(email, address).accountAddress, deviceFailures(email, token)),
        redis.set(deviceKey(email, token), '1', 'EX', KNOWN_DEVICE_DAYS * 86_400),
      ]);
      return token;
    },

    /**
     * A password reset proved the mailbox: the failures unknown places counted against
     * the account are forgiven, all of them together and this address's own (never an
     * address's count across accounts).
     */
    async forgive(email: string, address: string): Promise<void> {
      const keys = keysOf(email, address);
      await redis.del(keys.account, keys.accountAddress);
    },
  };
}

function newDeviceToken(): string {
  return randomBytes(32).toString('base64url');
}

export type LoginThrottle = ReturnType<typeof loginThrottle>;
