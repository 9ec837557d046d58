import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answersOk } from '../src/child-process.ts';

// A service is ready when its own ops server answers: a port another process took first
// (a parallel test's service, say) must not pass for it.
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((_request, response) => {
    response.setHeader('x-process-id', '4242');
    response.end('{"status":"ready"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no port');
  url = `http://127.0.0.1:${address.port}/readyz`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('readiness', () => {
  it("is the named process's answer only, when a process is named", async () => {
    expect(await answersOk(url)).toBe(true);
    expect(await answersOk(url, 4242)).toBe(true);
    expect(await answersOk(url, 4243)).toBe(false);
  });
});
