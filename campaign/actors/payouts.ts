import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { runAdminCli } from '@dzpay/testkit/processes';
import type { PayoutAttempt } from '../oracle/balance.ts';
import type { Rng } from '../rng.ts';
import type { ActorContext } from './context.ts';

/** More than a campaign ever collects: 1 000 000 DZD. */
const WAY_OVER = 100_000_000;

/** Centimes as the DZD an operator types: 1500.50. */
const typed = (centimes: number) =>
  `${Math.trunc(centimes / 100)}.${String(centimes % 100).padStart(2, '0')}`;

/**
 * An operator paying a merchant out while the run goes on, as one would: reads what is
 * available (`GET /api/v1/balance`), then `pnpm dzpay payout record` for part of it,
 * sometimes one centime more than it (refused, unless money came in meanwhile), sometimes
 * far more than was ever collected (always refused: the oracle's overdraw rule catches
 * a dzpay that records it), and sometimes a record already made again (the same payout
 * answered, nothing new). What
 * the CLI said goes to `attempts` for the oracle (oracle/balance.ts).
 */
export async function runPayouts(
  context: ActorContext,
  rng: Rng,
  index: number,
  cli: { env: Record<string, string>; attempts: PayoutAttempt[] },
): Promise<void> {
  const merchant = context.merchants[index]!;
  const recorded: PayoutAttempt[] = [];
  let n = 0;
  await sleep(rng.int(2_000, 5_000));
  while (Date.now() < context.until) {
    const outcome = await once().catch((error: unknown) => `error: ${String(error)}`);
    context.tally('operator/payout', outcome);
    await sleep(rng.int(1_500, 4_000));
  }

  async function once(): Promise<string> {
    const answer = await context.http(`${context.gatewayUrl}/api/v1/balance`, {
      headers: { 'x-api-key': merchant.testKey },
    });
    if (answer.status !== 200) return `balance answered ${answer.status}`;
    const available = (answer.json() as { data: { availableCentimes: number } }).data
      .availableCentimes;
    const kind = rng.weighted({
      part: 4,
      over: 1,
      'way-over': 1,
      again: recorded.length > 0 ? 1 : 0,
    });
    let attempt: PayoutAttempt;
    if (kind === 'again') {
      attempt = { ...recorded[rng.int(0, recorded.length - 1)]!, outcome: 'unknown' };
    } else {
      if (kind === 'part' && available < 100) return 'nothing to pay out yet';
      const amount =
        kind === 'over'
          ? available + 1
          : kind === 'way-over'
            ? available + WAY_OVER
            : rng.int(1, Math.floor(available / 3) || 1);
      attempt = {
        merchantId: merchant.id,
        mode: 'test',
        reference: `CAMP-${merchant.index}-${n++}-${randomUUID().slice(0, 8)}`,
        amount,
        outcome: 'unknown',
      };
    }
    try {
      const reply = await runAdminCli<{ payout: { id: string }; replayed: boolean }>(cli.env, [
        'payout',
        'record',
        merchant.id,
        '--mode',
        'test',
        '--amount',
        typed(attempt.amount),
        '--wallet',
        `W-${merchant.index}`,
        '--reference',
        attempt.reference,
        '--operator',
        'campaign',
      ]);
      const done = { ...attempt, outcome: 'recorded' as const, payoutId: reply.payout.id };
      cli.attempts.push(done);
      if (!reply.replayed) recorded.push(done);
      context.count(reply.replayed ? 'payoutsAnsweredAgain' : 'payoutsRecorded');
      return `${kind}: ${reply.replayed ? 'answered again' : 'recorded'}`;
    } catch (error) {
      // The CLI prints payments' refusal as `<code>: <message>` and exits 1.
      const refused = String(error).includes('PAYOUT422_OVER_BALANCE');
      cli.attempts.push({ ...attempt, outcome: refused ? 'refused' : 'unknown' });
      if (refused) context.count('payoutsRefused');
      return `${kind}: ${refused ? 'refused over the balance' : 'no answer'}`;
    }
  }
}
