import { describe, expect, it } from 'vitest';
import { jetStreamWatch } from '../src/jetstream-watch.ts';
import { createLogger } from '../src/logger.ts';

function setup(servers = 3) {
  let now = 0;
  let answering = true;
  let moves = 0;
  const lines: { level: number; msg: string }[] = [];
  const logger = createLogger('test', 'info', {
    write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }),
  });
  const watch = jetStreamWatch({
    look: {
      ask: () =>
        answering ? Promise.resolve() : Promise.reject(new Error('jetstream is not enabled')),
      move: () => {
        moves++;
        answering = true;
        return Promise.resolve();
      },
    },
    logger,
    moveAfterMs: 12_000,
    servers,
    clock: () => now,
  });
  const at = async (ms: number) => {
    now = ms;
    await watch.check();
  };
  return {
    watch,
    at,
    lines,
    moves: () => moves,
    stopAnswering: () => (answering = false),
    answerAgain: () => (answering = true),
  };
}

describe('the JetStream watch', () => {
  it('rides out an election in place: degraded while JetStream is silent, no move', async () => {
    const { watch, at, moves, stopAnswering, answerAgain } = setup();
    await at(0);
    await expect(watch.assertAnswering()).resolves.toBeUndefined();
    stopAnswering();
    for (let t = 1_000; t <= 9_000; t += 1_000) await at(t);
    await expect(watch.assertAnswering()).rejects.toThrow(/no JetStream answer for 8000 ms/);
    answerAgain();
    await at(10_000);
    await expect(watch.assertAnswering()).resolves.toBeUndefined();
    expect(moves()).toBe(0);
  });

  it('moves off a server that stays without JetStream, once per period, and says so at warn', async () => {
    const { at, moves, lines, stopAnswering } = setup();
    stopAnswering();
    for (let t = 0; t <= 11_000; t += 1_000) await at(t);
    expect(moves()).toBe(0);
    await at(12_000);
    expect(moves()).toBe(1);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [40, 'JetStream does not answer through this NATS server'],
      [
        40,
        'no JetStream through this NATS server for too long (cut from its peers?): moving to another',
      ],
    ]);
  });

  it('stays where it is with a single server: there is nowhere to go', async () => {
    const { at, moves, stopAnswering } = setup(1);
    stopAnswering();
    for (let t = 0; t <= 60_000; t += 1_000) await at(t);
    expect(moves()).toBe(0);
  });
});
