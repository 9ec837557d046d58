import { Socket } from 'node:net';
import type { TestProject } from 'vitest/node';
import { configuredUrls, LOCAL_DEFAULTS, type InfraUrls } from './infra.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    infra: InfraUrls;
  }
}

const stops: (() => Promise<unknown>)[] = [];

/**
 * Finds real infrastructure once per run: URLs from the environment first, then the
 * services listening on this machine, and only when neither answers, containers
 * through testcontainers (which needs a Docker engine).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const configured = configuredUrls(process.env);
  const urls = { ...LOCAL_DEFAULTS, ...configured };
  for (const kind of ['postgres', 'redis', 'nats'] as const) {
    if (configured[kind] || (await answers(urls[kind]))) continue;
    urls[kind] = await startContainer(kind);
  }
  project.provide('infra', urls);
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}

async function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  const socket = new Socket();
  const answered = await new Promise<boolean>((resolve) => {
    socket.setTimeout(500);
    socket.once('connect', () => resolve(true));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => resolve(false));
    socket.connect(Number(port), hostname.replace(/^\[|\]$/g, ''));
  });
  socket.destroy();
  return answered;
}

async function startContainer(kind: keyof InfraUrls): Promise<string> {
  const { GenericContainer, Wait } = await import('testcontainers');
  if (kind === 'postgres') {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const pg = await new PostgreSqlContainer('postgres:17-alpine').start();
    stops.push(() => pg.stop());
    return pg.getConnectionUri();
  }
  if (kind === 'redis') {
    const { RedisContainer } = await import('@testcontainers/redis');
    const redis = await new RedisContainer('redis:7-alpine').start();
    stops.push(() => redis.stop());
    return redis.getConnectionUrl();
  }
  const nats = await new GenericContainer('nats:2.11-alpine')
    .withCommand(['-js'])
    .withExposedPorts(4222)
    .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
    .start();
  stops.push(() => nats.stop());
  return `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`;
}
