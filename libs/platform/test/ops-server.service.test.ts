import { afterEach, describe, expect, it } from 'vitest';
import { createMetricsRegistry, startOpsServer, type OpsServer } from '../src/ops-server.ts';

let server: OpsServer | undefined;
afterEach(() => server?.close());

const refused = () => Promise.reject(new Error('connection refused'));
const answers = () => Promise.resolve();

async function readiness(degradable: string[], redis: () => Promise<unknown>) {
  server = await startOpsServer({
    host: '127.0.0.1',
    port: 0,
    registry: createMetricsRegistry('sample'),
    checks: { postgres: answers, redis },
    degradable,
  });
  server.markReady();
  const response = await fetch(`http://127.0.0.1:${server.port}/readyz`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('/readyz', () => {
  it('keeps a service in rotation, degraded, when only a degradable dependency fails', async () => {
    expect(await readiness(['redis'], refused)).toEqual({
      status: 200,
      body: { status: 'degraded', checks: { postgres: 'ok', redis: 'connection refused' } },
    });
  });

  it('takes a service out of rotation when a dependency it needs fails', async () => {
    const { status, body } = await readiness([], refused);
    expect(status).toBe(503);
    expect(body).toMatchObject({ status: 'not ready' });
  });

  it('is ready when everything answers', async () => {
    expect((await readiness(['redis'], answers)).body).toMatchObject({ status: 'ready' });
  });
});
