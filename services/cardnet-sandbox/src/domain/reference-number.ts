/** How many refunds the 8-digit sequence can number. */
const SEQUENCE_SPAN = 100_000_000;

/**
 * A retrieval reference number (RRN, ISO 8583 field 37), 12 digits, as processors
 * commonly build it: the year's last digit and the day of the year (YDDD, UTC), then a
 * sequence. The sandbox's sequence never repeats within its life (its orders do not
 * outlive it), so neither does an RRN.
 */
export function referenceNumberOf(sequence: number, now: Date): string {
  const startOfYear = Date.UTC(now.getUTCFullYear(), 0, 1);
  const dayOfYear = Math.floor((now.getTime() - startOfYear) / 86_400_000) + 1;
  const prefix = `${now.getUTCFullYear() % 10}${String(dayOfYear).padStart(3, '0')}`;
  return `${prefix}${String(sequence % SEQUENCE_SPAN).padStart(8, '0')}`;
}
