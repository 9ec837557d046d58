/** Where the test run finds Postgres, Redis and NATS. */
export interface InfraUrls {
  /** A Postgres URL whose user may create and drop databases. */
  postgres: string;
  redis: string;
  nats: string;
}

/** Locally running services of a developer's or CI's machine. */
export const LOCAL_DEFAULTS: InfraUrls = {
  postgres: 'postgres://postgres@127.0.0.1:5432/postgres',
  redis: 'redis://127.0.0.1:6379',
  nats: 'nats://127.0.0.1:4222',
};

/** URLs the environment names explicitly (TEST_POSTGRES_URL, TEST_REDIS_URL, TEST_NATS_URL). */
export function configuredUrls(env: Record<string, string | undefined>): Partial<InfraUrls> {
  return Object.fromEntries(
    Object.entries({
      postgres: env.TEST_POSTGRES_URL,
      redis: env.TEST_REDIS_URL,
      nats: env.TEST_NATS_URL,
    }).filter(([, url]) => url),
  );
}
