import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentsRepository } from '../src/store/payments-repository.ts';
import { LeaseLost, settlementLeases } from '../src/lifecycle/settlement-lease.ts';
import { startPaymentsHarness, type PaymentsHarness } from './harness.ts';

/**
 * A settlement's calls to the card network are fenced by its lease: a process paused past
 * its lease (SIGSTOP, a long collection) must not call the network beside the process
 * that took the lease over. The pause is played on the monotonic clock the runner reads,
 * the lease's end in Postgres is real.
 */

const LEASE_MS = 1_000;
let h: PaymentsHarness;

beforeAll(async () => {
  h = await startPaymentsHarness('payments-fence', { SWEEP_INTERVAL_MS: '86400000' });
});
afterAll(async () => {
  await h?.stop();
});

function runners() {
  let now = 0;
  let renewals = 0;
  const real = paymentsRepository(h.db);
  const repository: typeof real = {
    ...real,
    renewSettlement: (...args) => {
      renewals++;
      return real.renewSettlement(...args);
    },
  };
  const runner = (monotonic: () => number) =>
    settlementLeases({
      repository,
      logger: h.runtime.logger,
      leaseMs: LEASE_MS,
      callMs: 400,
      monotonic,
    });
  return {
    paused: runner(() => now),
    pause: (ms: number) => (now += ms),
    renewals: () => renewals,
  };
}

describe('a settlement fenced by its lease', () => {
  it('calls while the lease has time left, without renewing it', async () => {
    const { paymentId } = await h.register();
    const { paused, renewals } = runners();
    const outcome = await paused(paymentId, async (claimed) => {
      await claimed.fence();
      return 'called';
    });
    expect(outcome).toBe('called');
    expect(renewals()).toBe(0);
  });

  it('refuses the call when it was paused past its lease and another process took it', async () => {
    const { paymentId } = await h.register();
    const { paused, pause } = runners();
    const outcome = await paused(paymentId, async (claimed) => {
      // Paused (no timer ran, so no renewal) past its lease, which another process took.
      pause(5_000);
      await h.db`
        update payments set settle_lease = gen_random_uuid(),
          settle_lease_until = now() + interval '10 seconds'
        where id = ${paymentId}`;
      return claimed.fence().then(
        () => 'called beside the new holder',
        (error: unknown) => (error instanceof LeaseLost ? 'fenced' : String(error)),
      );
    });
    expect(outcome).toBe('fenced');
  });

  it('renews and calls when it was paused past its lease but nobody took it', async () => {
    const { paymentId } = await h.register();
    const { paused, pause, renewals } = runners();
    const outcome = await paused(paymentId, async (claimed) => {
      pause(5_000);
      await claimed.fence();
      return 'called';
    });
    expect(outcome).toBe('called');
    expect(renewals()).toBe(1);
    const [row] = await h.db<{ until: Date | null }[]>`
      select settle_lease_until as until from payments where id = ${paymentId}`;
    // Released at the end, as always.
    expect(row?.until).toBeNull();
  });
});
