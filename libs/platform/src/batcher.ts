/**
 * Gathers the calls made while a write is under way into the next write: a burst costs
 * one transaction (one commit, one fsync) per batch instead of one per call, and a lone
 * call waits for nothing. Batches are written one at a time, in arrival order, at most
 * `maxBatch` items each. `write` answers one result per item, in the items' order.
 *
 * When a batch of several items fails, each item is written again alone, so one bad item
 * (a value the database refuses) fails only its own call, not its neighbours'.
 *
 * `gatherMs` > 0 makes the first call of a batch wait that long for company: for items
 * nobody waits on (a position that only has to be recorded before its acknowledgement),
 * a steady trickle then costs one write per window instead of one per item.
 */
export function batcher<Item, Result>(
  write: (items: readonly Item[]) => Promise<readonly Result[]>,
  maxBatch: number,
  gatherMs = 0,
): (item: Item) => Promise<Result> {
  interface Waiting {
    item: Item;
    resolve: (result: Result) => void;
    reject: (error: unknown) => void;
  }
  let queue: Waiting[] = [];
  let writing = false;

  async function settle(batch: Waiting[]): Promise<void> {
    try {
      const results = await write(batch.map((waiting) => waiting.item));
      if (results.length !== batch.length) {
        throw new Error(`batch write answered ${results.length} results for ${batch.length}`);
      }
      batch.forEach((waiting, index) => waiting.resolve(results[index]!));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      for (const waiting of batch) await settle([waiting]);
    }
  }

  async function drain(): Promise<void> {
    writing = true;
    if (gatherMs > 0) await new Promise((resolve) => setTimeout(resolve, gatherMs));
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(maxBatch);
      await settle(batch);
    }
    writing = false;
  }

  return (item) =>
    new Promise<Result>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!writing) void drain();
    });
}
