/**
 * Cursor pagination in links. The API gives only the next (older) page's cursor; the
 * way back is carried in the link itself: `back` is the cursors of the pages before,
 * oldest first, as base64url JSON ('' stands for the first page). Nothing is kept on the
 * server, and a link can be shared or reloaded.
 */

/** How many pages back a link remembers; beyond, "newer" goes to the first page. */
const MAX_TRAIL = 20;
const MAX_CURSOR = 1000;

export interface PageLinks {
  /** Query fields of the next (older) page, or null on the last page. */
  next: Record<string, string> | null;
  /** Query fields of the previous (newer) page, or null on the first page. */
  previous: Record<string, string> | null;
}

/** The cursors before this page, oldest first; anything unreadable counts as none. */
export function trailOf(back: string | undefined): string[] {
  if (!back || back.length > 64 * 1024) return [];
  try {
    const parsed: unknown = JSON.parse(Buffer.from(back, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed)) return [];
    return parsed
      .filter((entry): entry is string => typeof entry === 'string' && entry.length <= MAX_CURSOR)
      .slice(-MAX_TRAIL);
  } catch {
    return [];
  }
}

const encode = (trail: string[]) =>
  Buffer.from(JSON.stringify(trail.slice(-MAX_TRAIL))).toString('base64url');

export function pageLinks(
  cursor: string | undefined,
  back: string | undefined,
  nextCursor: string | null,
): PageLinks {
  const trail = trailOf(back);
  const next = nextCursor ? { cursor: nextCursor, back: encode([...trail, cursor ?? '']) } : null;
  let previous: Record<string, string> | null = null;
  if (cursor) {
    const before = trail.at(-1) ?? '';
    const rest = trail.slice(0, -1);
    previous = {
      ...(before ? { cursor: before } : {}),
      ...(rest.length > 0 ? { back: encode(rest) } : {}),
    };
  }
  return { next, previous };
}
