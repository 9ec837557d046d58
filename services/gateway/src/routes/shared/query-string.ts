import type { z } from 'zod';
import { ValidationFailure } from './errors.ts';

/**
 * A query string checked against its schema: 400 VALIDATION400_BAD_REQUEST naming each
 * field at fault, and each parameter the route does not know.
 */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const result = schema.safeParse(query ?? {});
  if (result.success) return result.data;
  throw ValidationFailure.of(
    result.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => ({ field: key, message: `query parameter ${key} is not known` }))
        : [{ field: issue.path.map(String).join('.') || 'query', message: issue.message }],
    ),
  );
}
