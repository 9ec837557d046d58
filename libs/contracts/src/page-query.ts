import { z } from 'zod';

/**
 * A page size of a list's query: at most `max`; strings from a query string are read
 * as the integers they hold.
 */
export const pageLimit = (max: number) =>
  z.coerce
    .number({ error: 'limit must be an integer' })
    .int({ error: 'limit must be an integer' })
    .min(1, { error: `limit must be between 1 and ${max}` })
    .max(max, { error: `limit must be between 1 and ${max}` })
    .optional();

/** The cursor a previous page of a list answered, as the next page's query gives it back. */
const pageCursor = z
  .string({ error: 'cursor must be a string' })
  .min(1, { error: 'cursor should not be empty' })
  .max(200, { error: 'cursor must be at most 200 characters' })
  .optional();

/** The page fields of a list's query: its size (at most `max`) and the cursor. */
export const pageQuery = (max: number) => ({ limit: pageLimit(max), cursor: pageCursor });
