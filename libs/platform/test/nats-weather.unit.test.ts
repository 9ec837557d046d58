import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.ts';
import { natsUnavailableReason, outageLog } from '../src/nats-weather.ts';

describe('natsUnavailableReason', () => {
  it('names the short outages of a cluster, as the NATS client words them', () => {
    const cases: [Error, RegExp][] = [
      [new Error('jetstream is not enabled'), /no leader here/],
      [new Error('JetStream system temporarily unavailable'), /no leader here/],
      [
        new Error('request', { cause: new Error('no responders: camp.payments') }),
        /nobody answers/,
      ],
      [Object.assign(new Error('timeout'), { name: 'TimeoutError' }), /did not answer in time/],
      [new Error('closed connection'), /connection is down/],
      [new Error('connection draining'), /connection is down/],
      [
        Object.assign(new Error('connection refused'), { name: 'ConnectionError' }),
        /connection is down/,
      ],
    ];
    for (const [error, reason] of cases) expect(natsUnavailableReason(error)).toMatch(reason);
  });

  it('leaves every other error alone (logged as the failure it is)', () => {
    expect(natsUnavailableReason(new Error('permissions violation for publish'))).toBeNull();
    expect(natsUnavailableReason(new TypeError('x is undefined'))).toBeNull();
    expect(natsUnavailableReason('boom')).toBeNull();
    // Not NATS's: another client's connection trouble is its own failure.
    expect(natsUnavailableReason(new Error('Connection is closed.'))).toBeNull();
    expect(natsUnavailableReason(new Error('read ECONNRESET: socket connection lost'))).toBeNull();
  });
});

describe('outageLog', () => {
  it('warns once when a failover starts, once when it ends, and keeps real failures errors', () => {
    const lines: { level: number; msg: string; [key: string]: unknown }[] = [];
    const logger = createLogger('test', 'info', {
      write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]),
    });
    let now = 1_000;
    const log = outageLog(logger, { waits: 'waits', back: 'back', failed: 'failed' }, () => now);
    log.failed(new Error('jetstream is not enabled'));
    now += 2_500;
    log.failed(new Error('timeout'));
    log.cleared();
    log.cleared();
    log.failed(new Error('permissions violation'));
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [40, 'waits'],
      [40, 'back'],
      [50, 'failed'],
    ]);
    expect(lines[1]).toMatchObject({ outMs: 2_500, attempts: 2 });
  });
});
