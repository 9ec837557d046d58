import { startRedisServer, type LocalRedisServer } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, type Redis } from '../src/redis.ts';

// A redis-server of this file's own: the machine's shared one (6379) is never stopped.
let server: LocalRedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(() => server?.stop());

/** Resolves once the client emits `ready` (now, if it already is). */
function ready(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => redis.once('ready', () => resolve()));
}

describe('connectRedis: a client that never makes a request wait out Redis', () => {
  it('fails commands at once while Redis is down, and is back by itself when Redis is', async () => {
    const lines: string[] = [];
    const redis = connectRedis(server.url, 'p:', {
      log: { warn: (_fields, message) => lines.push(message), info: (line) => lines.push(line) },
    });
    await ready(redis);
    expect(await redis.set('k', 'v')).toBe('OK');
    expect(await redis.get('k')).toBe('v');

    await server.kill();
    // Not queued until a reconnect nor retried: refused by the client without waiting.
    // (The refusal names the offline queue: no command waited for a connection.)
    await expect(redis.get('k')).rejects.toThrow(
      /Stream isn't writeable and enableOfflineQueue options is false|Connection is closed/,
    );
    await expect(redis.get('k')).rejects.toThrow(/enableOfflineQueue options is false/);

    await server.restart();
    await ready(redis);
    // A fresh server (in memory only): the key is gone, the client works again.
    expect(await redis.get('k')).toBeNull();
    expect(await redis.set('k', 'w')).toBe('OK');
    expect(lines).toEqual([
      'redis unreachable: reconnecting in the background',
      'redis reachable again',
    ]);
    await redis.quit();
  });

  it('quits without a connection instead of reconnecting forever', async () => {
    const redis = connectRedis(server.url, 'p:');
    await ready(redis);
    await server.kill();
    await expect(redis.ping()).rejects.toThrow();
    await expect(redis.quit()).resolves.toBe('OK');
    let connects = 0;
    redis.on('connect', () => connects++);
    await server.restart();
    // Longer than the longest pause between two reconnects: a client still trying
    // would have connected by now.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(connects).toBe(0);
    expect(redis.status).not.toBe('ready');
  });

  it('lets the first commands wait for the first connection, and only for it', async () => {
    // Sent before the client is connected: answered once it is.
    const early = connectRedis(server.url, 'p:');
    expect(await early.ping()).toBe('PONG');
    await early.quit();

    // Nothing listens: the first attempt fails and takes the waiting command with it;
    // later commands are refused without waiting for a reconnect.
    await server.kill();
    const late = connectRedis(server.url, 'p:');
    await expect(late.ping()).rejects.toThrow();
    await expect(late.ping()).rejects.toThrow(/enableOfflineQueue options is false/);
    await late.quit();
    await server.restart();
  });

  it('makes duplicates that behave the same', async () => {
    const redis = connectRedis(server.url, 'p:');
    const raw = redis.duplicate({ keyPrefix: '' });
    await redis.set('dup', '1');
    expect(await raw.get('p:dup')).toBe('1');
    await server.kill();
    await expect(raw.get('p:dup')).rejects.toThrow();
    await expect(raw.get('p:dup')).rejects.toThrow(/enableOfflineQueue options is false/);
    await Promise.all([redis.quit(), raw.quit()]);
    await server.restart();
  });

  it('puts the prefix on every key', async () => {
    const redis = connectRedis(server.url, 'dzpay-test:');
    await ready(redis);
    await redis.set('counter', '1');
    const plain = connectRedis(server.url, '');
    await ready(plain);
    expect(await plain.get('dzpay-test:counter')).toBe('1');
    await Promise.all([redis.quit(), plain.quit()]);
  });
});
