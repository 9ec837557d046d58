import { randomUUID } from 'node:crypto';
import { STATUS_CHANGED_CHANNEL, type StatusReply } from '@dzpay/contracts';
import { connectPostgres, onStatusChanges, type Sql } from '@dzpay/platform';
import { isolatedInfra, type IsolatedInfra } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusCache } from '../src/adapters/status-cache.ts';

// Status replicas answer from their own memory, each forgetting a reference when its own
// copy of Postgres's notification arrives. A gateway that has already heard of a change
// may ask a replica that has not: the answer is the state before the change. Remembered,
// it would be served until the next change or the time limit (ten minutes here). Real
// notifications, as status's trigger writes them; the lagging replica is the `ask` that
// answers its old memory.

let infra: IsolatedInfra;
let sql: Sql;
let statuses: ReturnType<typeof statusCache>;

const subject = { merchantId: randomUUID(), mode: 'test' as const, reference: 'BOOK-1' };

beforeAll(async () => {
  infra = await isolatedInfra('gateway-status-order');
  sql = connectPostgres(infra.databaseUrl, 'public', 2);
  statuses = statusCache({ ttlMs: 600_000, maxEntries: 100 });
  await onStatusChanges(sql, statuses);
});
afterAll(async () => {
  await sql?.end();
  await infra?.cleanup();
});

function reply(
  stage: 'locked' | 'paid',
  revisions: Record<string, number>,
  paymentId = Object.keys(revisions)[0]!,
): StatusReply {
  return {
    reference: subject.reference,
    stage,
    locked: stage === 'locked',
    paid: stage === 'paid',
    lockReleaseTime: null,
    paymentId,
    channel: 'AGENCY',
    currency: 'DZD',
    amount: 1500,
    payment: null,
    revisions,
  };
}

/** What status's trigger sends when a commit brings an attempt's row to `revision`. */
async function committed(paymentId: string, revision: number): Promise<void> {
  const remembered = statuses.size();
  await sql`
    select pg_notify(${STATUS_CHANGED_CHANNEL}, json_build_array(
      ${subject.merchantId}::uuid, ${subject.mode}::text, ${subject.reference}::text,
      ${paymentId}::uuid, ${revision}::bigint)::text)`;
  // Heard once the remembered record is forgotten.
  await expect.poll(() => statuses.size(), { timeout: 5_000, interval: 5 }).toBe(remembered - 1);
}

/** Answers `answer` and counts the asks. */
function replica(answer: StatusReply) {
  const replica = { asks: 0, ask: () => (replica.asks++, Promise.resolve(answer)) };
  return replica;
}

describe("the gateway's status memory, told of changes", () => {
  it('does not remember an answer older than a change it heard of', async () => {
    const first = randomUUID();
    const lockedNow = replica(reply('locked', { [first]: 1 }));
    expect((await statuses.statusOf(subject, lockedNow.ask)).stage).toBe('locked');

    // The attempt is paid: its row reaches revision 2, the gateway hears of it.
    await committed(first, 2);
    // A replica that has not heard yet answers what it remembers: the locked record.
    const lagging = replica(reply('locked', { [first]: 1 }));
    expect((await statuses.statusOf(subject, lagging.ask)).stage).toBe('locked');
    // The next query asks again (remembered, the locked record would be served for ten
    // minutes), and the answer that has the change is remembered.
    const upToDate = replica(reply('paid', { [first]: 2 }));
    expect((await statuses.statusOf(subject, upToDate.ask)).stage).toBe('paid');
    expect(await statuses.statusOf(subject, upToDate.ask)).not.toHaveProperty('revisions');
    expect(upToDate.asks).toBe(1);

    // A new attempt of the reference: an answer that does not have it is older too.
    const second = randomUUID();
    await committed(second, 1);
    const withoutIt = replica(reply('paid', { [first]: 2 }));
    await statuses.statusOf(subject, withoutIt.ask);
    await statuses.statusOf(subject, withoutIt.ask);
    expect(withoutIt.asks).toBe(2);
    const withIt = replica(reply('paid', { [first]: 2, [second]: 1 }, first));
    await statuses.statusOf(subject, withIt.ask);
    await statuses.statusOf(subject, withIt.ask);
    expect(withIt.asks).toBe(1);
  });
});
