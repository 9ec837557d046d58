import { createServer, type IncomingMessage } from 'node:http';
import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { startTelemetry } from '../src/telemetry.ts';

describe('startTelemetry', () => {
  it('does nothing without an endpoint', async () => {
    const telemetry = await startTelemetry('quiet', undefined);
    await expect(telemetry.shutdown()).resolves.toBeUndefined();
  });

  it('exports spans over OTLP/HTTP to the configured endpoint', async () => {
    const received: { url: string; body: Buffer }[] = [];
    const collector = createServer((request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ url: request.url ?? '', body: Buffer.concat(chunks) });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const { port } = collector.address() as { port: number };

    const telemetry = await startTelemetry('traced', `http://127.0.0.1:${port}`);
    trace.getTracer('test').startActiveSpan('set-qr-config', (span) => span.end());
    await telemetry.shutdown();
    await new Promise((resolve) => collector.close(resolve));

    expect(received.map((r) => r.url)).toContain('/v1/traces');
    const payload = Buffer.concat(received.map((r) => r.body)).toString('latin1');
    expect(payload).toContain('set-qr-config');
    expect(payload).toContain('dzpay-traced');
  });
});
