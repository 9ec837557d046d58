// Starting and stopping a test's pieces together (a browser, stacks, a partner's server):
// a failure of one never leaves the others running.

/** What each start gave, undefined where it failed. */
export const valuesOf = (started: PromiseSettledResult<unknown>[]): unknown[] =>
  started.map((s) => (s.status === 'fulfilled' ? s.value : undefined));

/** When a start failed, stops what did start, then throws that failure. */
export async function stopIfOneFailed(
  started: PromiseSettledResult<unknown>[],
  stop: () => Promise<void>,
): Promise<void> {
  const failed = started.find((s) => s.status === 'rejected');
  if (!failed) return;
  await stop().catch(() => undefined);
  throw failed.reason;
}

/** Waits for every one of `stopping`, even when one fails; throws the first failure. */
export async function stopEvery(stopping: (Promise<void> | undefined)[]): Promise<void> {
  const stopped = await Promise.allSettled(stopping.map((p) => p ?? Promise.resolve()));
  const failed = stopped.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
}
