/**
 * Gathers the calls made while a write is under way into the next write: a burst costs
 * one transaction (one commit, one fsync) per batch instead of one per call, and a lone
 * call waits for nothing. Batches are written one at a time, in arrival order, at most
 * `maxBatch` items each. `write` answers one result per item, in the items' order.
 *
 * When a batch of several items fails, each item is written again alone, so one bad item
 * (a value the database refuses) fails only its own call, not its neighbours'.
 */
export function batcher<Item, Result>(
  write: (items: readonly Item[]) => Promise<readonly Result[]>,
  maxBatch: number,
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
