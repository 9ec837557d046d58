import { connect } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack.ts';

let stack: Stack | undefined;
afterAll(() => stack?.stop());

describe('gateway shutdown', () => {
  it('is not held open by a client that never finishes its request body', async () => {
    stack = await startStack(
      'gateway-shutdown',
      { SHUTDOWN_TIMEOUT_MS: '2000' },
      { withQrConfig: false },
    );
    const { port } = new URL(stack.gateway.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => {});
    socket.resume();
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // Promises 1000 bytes, sends 5, and waits.
    socket.write(
      'POST /api/v1/payments HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
        'content-length: 1000\r\n\r\n{"a":',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Without the cut the stop waits for the client forever (the test's timeout fails it).
    await stack.gateway.runtime.stop();
    await closed;
    expect(socket.destroyed).toBe(true);
  }, 20_000);
});
