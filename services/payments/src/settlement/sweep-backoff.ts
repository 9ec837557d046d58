/** The first retry after a failed sweep, and the longest wait between two. */
const FIRST_RETRY_MS = 1_000;
const LONGEST_WAIT_MS = 5 * 60 * 1000;

/**
 * How long the sweeper leaves an attempt alone after it failed to decide it `failures`
 * times in a row: doubling from a second up to five minutes. An attempt the card network
 * cannot answer for keeps being asked, but never ahead of the attempts behind it.
 */
export function sweepBackoffMs(failures: number): number {
  if (failures <= 0) return 0;
  return Math.min(FIRST_RETRY_MS * 2 ** (failures - 1), LONGEST_WAIT_MS);
}

/**
 * When the sweeper looks again at an attempt it asked about without error. Decided, or
 * open past its window (another settlement holds it): as soon as it is due (null). Open
 * inside its window: at the end of the window, or after `staleAfterMs` when that is
 * sooner (a verdict the card network is still making).
 */
export function nextLookAt(
  attempt: { status: string; expiresAt: Date },
  now: Date,
  staleAfterMs: number,
): Date | null {
  if (attempt.status !== 'pending' && attempt.status !== 'processing') return null;
  const windowEnd = attempt.expiresAt.getTime();
  if (windowEnd <= now.getTime()) return null;
  return new Date(Math.min(windowEnd, now.getTime() + staleAfterMs));
}
