import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createDatabase, dropDatabase, terminateBackends } from '../src/databases.ts';
import { freePort } from '../src/processes.ts';
import { findBinary } from '../src/server-process.ts';
import { startNatsServer, startRedisServer, type LocalServer } from '../src/servers.ts';

// The machine's shared servers, which nothing here may ever reach.
const SHARED_PORTS = [4222, 6379];

const started: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.stop()));
});

describe('startNatsServer', () => {
  it('keeps a JetStream message across SIGKILL and restart, and removes its store on stop', async () => {
    const nats = await startNatsServer();
    started.push(nats);
    expect(SHARED_PORTS).not.toContain(nats.port);
    expect(existsSync(nats.storeDir)).toBe(true);

    const nc = await connect({ servers: nats.url, reconnectTimeWait: 100 });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'PROBE', subjects: ['probe.>'], storage: StorageType.File });
    const js = jetstream(nc);
    const ack = await js.publish('probe.one', 'hello', { msgID: 'm-1' });
    expect(ack).toMatchObject({ stream: 'PROBE', seq: 1, duplicate: false });

    const pid = nats.pid;
    await nats.kill();
    expect(nats.running).toBe(false);
    expect(nats.pid).toBeUndefined();
    await expect(js.publish('probe.two', 'lost', { timeout: 500 })).rejects.toThrow();
    await nc.close();

    await nats.restart();
    expect(nats.pid).not.toBe(pid);
    const again = await connect({ servers: nats.url });
    const stored = await (await jetstreamManager(again)).streams.getMessage('PROBE', { seq: 1 });
    expect(stored?.string()).toBe('hello');
    expect(stored?.header.get('Nats-Msg-Id')).toBe('m-1');
    // The duplicate window survives the crash too: a retried publish is not stored twice.
    const retry = await jetstream(again).publish('probe.one', 'hello', { msgID: 'm-1' });
    expect(retry).toMatchObject({ seq: 1, duplicate: true });
    await again.close();

    await nats.stop();
    expect(existsSync(nats.storeDir)).toBe(false);
    expect(nats.output()).toContain('restarting nats-server');
  });
});

describe('startRedisServer', () => {
  it('flushes, dies on SIGKILL and answers again on the same port after restart', async () => {
    const server = await startRedisServer();
    started.push(server);
    expect(SHARED_PORTS).not.toContain(server.port);

    const redis = new Redis(server.url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => {});
    await redis.set('probe', '1');
    await server.flushAll();
    expect(await redis.exists('probe')).toBe(0);

    await server.kill();
    expect(server.running).toBe(false);
    await expect(redis.get('probe')).rejects.toThrow();
    redis.disconnect();

    await server.restart();
    const again = new Redis(server.url);
    expect(await again.ping()).toBe('PONG');
    expect(new URL(server.url).port).toBe(String(server.port));
    await again.quit();
    await server.stop();
    expect(server.running).toBe(false);
  });
});

describe('server processes', () => {
  it('refuse a port somebody else listens on instead of probing that server', async () => {
    const port = await freePort();
    const other = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => other.listen(port, '127.0.0.1', resolve));
    await expect(startNatsServer({ port })).rejects.toThrow(`port ${port} on 127.0.0.1 is in use`);
    await expect(startRedisServer({ port })).rejects.toThrow(/in use/);
    await new Promise((resolve) => other.close(resolve));
  });

  it('name the binary they cannot find', async () => {
    await expect(findBinary('dzpay-no-such-server')).rejects.toThrow(
      /dzpay-no-such-server not found on PATH/,
    );
  });
});

describe('databases', () => {
  it('creates a database, cuts off its clients by application name, and drops it', async () => {
    const adminUrl = inject('infra').postgres;
    const name = `dzpay_t_servers_${randomBytes(4).toString('hex')}`;
    const url = await createDatabase(adminUrl, name);
    expect(new URL(url).pathname).toBe(`/${name}`);

    const sql = postgres(url, { max: 1, connection: { application_name: 'dzpay-x' } });
    const [before] = await sql<{ pid: number }[]>`select pg_backend_pid() as pid`;
    expect(await terminateBackends(adminUrl, name, { applicationNamePrefix: 'other-' })).toBe(0);
    expect(await terminateBackends(adminUrl, name, { applicationNamePrefix: 'dzpay-' })).toBe(1);
    // The killed connection either fails its next query or comes back as a new backend.
    const after = await sql<{ pid: number }[]>`select pg_backend_pid() as pid`.then(
      ([row]) => row!.pid,
      () => null,
    );
    expect(after).not.toBe(before!.pid);
    await sql.end();

    const fresh = postgres(url, { max: 1 });
    expect(await fresh`select 1 as one`).toEqual([{ one: 1 }]);
    await fresh.end();

    await dropDatabase(adminUrl, name);
    const admin = postgres(adminUrl, { max: 1 });
    const [row] = await admin<{ found: boolean }[]>`
      select exists (select 1 from pg_database where datname = ${name}) as found`;
    expect(row!.found).toBe(false);
    await admin.end();
  });

  it('refuses to drop or cut off the shared databases', async () => {
    const adminUrl = inject('infra').postgres;
    await expect(dropDatabase(adminUrl, 'postgres')).rejects.toThrow(/refusing/);
    await expect(terminateBackends(adminUrl, 'template1')).rejects.toThrow(/refusing/);
  });
});
