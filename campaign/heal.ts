import { PairNotHealed } from '@dzpay/testkit/postgres-pair';
import type { CampaignInfra } from './infra.ts';
import type { CampaignStack } from './stack.ts';

/** How long putting the world back may take before the run is ended instead. */
const HEAL_BUDGET_MS = 150_000;

/**
 * After a fault whose undo failed: what the run needs to go on, put back, every step
 * bounded. Null when the world is whole again (every cut healed, every service running
 * and ready, the database committing, NATS led); otherwise what is still broken, and the
 * run must end on it rather than judge a world it did not mean to make. A Postgres pair
 * that said it cannot heal (PairNotHealed) is not tried again: nothing here could.
 */
export async function healWorld(
  deps: { stack: CampaignStack; infra: CampaignInfra; log: (line: string) => void },
  failure: unknown,
): Promise<string | null> {
  if (failure instanceof PairNotHealed) return failure.message;
  const deadline = Date.now() + HEAL_BUDGET_MS;
  const steps: [string, () => Promise<string | null>][] = [
    ['every cut healed', async () => (await deps.infra.heal(), null)],
    [
      'every service running and ready',
      async () => {
        for (const replica of deps.stack.all()) replica.resume();
        const started = await Promise.allSettled(deps.stack.all().map((r) => r.start()));
        const failed = started.find((s) => s.status === 'rejected');
        return failed ? String(failed.reason) : null;
      },
    ],
    ['the database commits', () => deps.infra.commits()],
    ['NATS led again', async () => (await deps.infra.nats.settled(), null)],
  ];
  for (const [name, step] of steps) {
    const left = deadline - Date.now();
    const outcome = await withinMs(left, () => step().catch((error: unknown) => String(error)));
    const broken = outcome === undefined ? `not done in ${HEAL_BUDGET_MS} ms` : outcome;
    if (broken !== null) return `${name}: ${broken}`;
    deps.log(`heal: ${name}`);
  }
  return null;
}

async function withinMs<T>(ms: number, work: () => Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
  });
  try {
    return await Promise.race([work(), late]);
  } finally {
    clearTimeout(timer);
  }
}
