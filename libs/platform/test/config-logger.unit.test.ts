import { Writable } from 'node:stream';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { context, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { BaseEnv, ConfigError, loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';

/** A logger whose lines land in `lines`. */
function capturedLogger() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString());
      callback();
    },
  });
  return { lines, logger: createLogger('test', 'info', sink) };
}

describe('loadConfig', () => {
  it('fills defaults for a developer machine', () => {
    const config = loadConfig(BaseEnv, { OPS_PORT: '9000' });
    expect(config).toMatchObject({
      OPS_PORT: 9000,
      NATS_PREFIX: 'dzpay',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/dzpay',
      LOG_LEVEL: 'info',
    });
  });

  it('takes a Postgres URL of several hosts, as a failover pair needs, and refuses a non-URL', () => {
    const pair = 'postgres://u@10.0.0.1:5432,10.0.0.2:5433/dzpay?target_session_attrs=primary';
    expect(loadConfig(BaseEnv, { OPS_PORT: '0', DATABASE_URL: pair }).DATABASE_URL).toBe(pair);
    for (const bad of ['127.0.0.1:5432/dzpay', 'http://db/dzpay', 'postgres://h1:5432,h 2:x/db'])
      expect(() => loadConfig(BaseEnv, { OPS_PORT: '0', DATABASE_URL: bad })).toThrow(
        /DATABASE_URL/,
      );
  });

  it('names every bad variable, never its value', () => {
    const secret = 'postgres://user:s3cr3t-value@db/dzpay with spaces';
    let error: unknown;
    try {
      loadConfig(BaseEnv, { OPS_PORT: 'many', DATABASE_URL: secret, NATS_PREFIX: 'a.b' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain('OPS_PORT');
    expect(message).toContain('NATS_PREFIX');
    expect(message).not.toContain('s3cr3t');
  });

  it('refuses processed-event records kept no longer than the streams keep events', () => {
    const env = { OPS_PORT: '0', STREAM_MAX_AGE_MS: '86400000' };
    expect(() => loadConfig(BaseEnv, { ...env, DEDUP_RETENTION_MS: '86400000' })).toThrow(
      /DEDUP_RETENTION_MS: must exceed STREAM_MAX_AGE_MS/,
    );
    expect(loadConfig(BaseEnv, { ...env, DEDUP_RETENTION_MS: '90000000' })).toMatchObject({
      STREAM_MAX_AGE_MS: 86_400_000,
      DEDUP_RETENTION_MS: 90_000_000,
    });
  });
});

describe('createLogger', () => {
  it('redacts keys, secrets, passwords and card data wherever they appear', () => {
    const { lines, logger } = capturedLogger();
    logger.info(
      {
        req: { headers: { 'x-api-key': 'pk_live_topsecret', authorization: 'Bearer abc' } },
        merchant: { apiSecret: 'shh', password: 'hunter2' },
        card: { pan: '4111111111111111', cvv: '123' },
      },
      'hello',
    );
    const line = lines.join('');
    for (const secret of [
      'pk_live_topsecret',
      'Bearer abc',
      'shh',
      'hunter2',
      '4111111111111111',
      '"123"',
    ]) {
      expect(line).not.toContain(secret);
    }
    expect(line).toContain('[redacted]');
    expect(JSON.parse(line)).toMatchObject({ service: 'test', msg: 'hello' });
  });

  it('leaves out the bytes of a request Node could not parse, URL and all', () => {
    const { lines, logger } = capturedLogger();
    const rawPacket = Buffer.from('GET /dashboard/invite/the-token HTTP/1.1\r\nbad header\r\n');
    logger.info({ err: Object.assign(new Error('Parse Error'), { rawPacket }) }, 'client error');
    const logged = JSON.parse(lines.join('')) as { err: Record<string, unknown> };
    expect(logged.err).toMatchObject({ message: 'Parse Error', rawPacket: '[redacted]' });
  });
});

describe('log lines and traces', () => {
  it('name the active span, so a request is found from its logs and back', () => {
    const { lines, logger } = capturedLogger();
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    try {
      const span = trace.wrapSpanContext({
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        spanId: '00f067aa0ba902b7',
        traceFlags: TraceFlags.SAMPLED,
      });
      context.with(trace.setSpan(ROOT_CONTEXT, span), () => logger.info('inside'));
      logger.info('outside');
    } finally {
      context.disable();
    }
    const [inside, outside] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(inside).toMatchObject({
      trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
      span_id: '00f067aa0ba902b7',
    });
    expect(outside).not.toHaveProperty('trace_id');
  });
});
