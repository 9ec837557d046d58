import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { readText } from './support/repository.ts';
import { runtimeSchemas } from './support/service-schemas.ts';

// README.md's configuration table gives every service's ops port (/healthz, /readyz,
// /metrics) as the service defaults it: an SRE starting the processes by hand reads it there.

describe('README.md: the ops ports', () => {
  it("names every service's default OPS_PORT", () => {
    const row = readText('README.md')
      .split('\n')
      .find((line) => line.startsWith('| `OPS_PORT`'));
    expect(row, 'the OPS_PORT row').toBeDefined();
    for (const [service, schema] of Object.entries(runtimeSchemas)) {
      const port = z.object({ OPS_PORT: z.number() }).parse(schema.parse(sampleEnv)).OPS_PORT;
      expect(row, service).toContain(`${service} \`${port}\``);
    }
  });
});

/** Just what every schema requires, so its defaults come out. */
const sampleEnv = {
  DATABASE_URL: 'postgresql://dzpay@localhost:5432/dzpay',
  NATS_URL: 'nats://localhost:4222',
  REDIS_URL: 'redis://localhost:6379',
  PUBLIC_BASE_URL: 'https://pay.example.dz',
  SECRETS_KEY: Buffer.alloc(32).toString('base64'),
};
