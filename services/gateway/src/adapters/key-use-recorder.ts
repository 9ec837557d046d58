import type { Logger } from '@dzpay/platform';

/**
 * Notes that a key was used, for "last used" in the dashboard: at most once per
 * `intervalMs` per key in this gateway, off the request's path (a failed write is
 * logged, never answered), so authentication costs no database write.
 */
export function keyUseRecorder(
  record: (keyId: string, at: Date) => Promise<unknown>,
  options: { intervalMs: number; maxKeys: number; logger: Logger; clock?: () => Date },
): (keyId: string) => void {
  const clock = options.clock ?? (() => new Date());
  const recordedAt = new Map<string, number>();
  return (keyId) => {
    const now = clock();
    const last = recordedAt.get(keyId);
    if (last !== undefined && now.getTime() - last < options.intervalMs) return;
    // Memory stays bounded whatever the number of keys: forgetting only writes again sooner.
    if (last === undefined && recordedAt.size >= options.maxKeys) recordedAt.clear();
    recordedAt.set(keyId, now.getTime());
    record(keyId, now).catch((err: unknown) =>
      options.logger.warn({ err, keyId }, 'could not record an API key use'),
    );
  };
}
