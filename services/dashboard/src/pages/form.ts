/**
 * One field of a submitted form or a query string, trimmed; undefined when absent or
 * blank. Fastify's form parser gives a string, or an array when a field repeats (the
 * first counts); URLSearchParams works too.
 */
export function fieldOf(source: unknown, name: string): string | undefined {
  let value: unknown;
  if (source instanceof URLSearchParams) value = source.get(name);
  else if (typeof source === 'object' && source !== null)
    value = (source as Record<string, unknown>)[name];
  if (Array.isArray(value)) value = value[0];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed.length > 0 ? trimmed : undefined;
}

/** A query string of the given fields, without the blank ones (`?a=1&b=2`, or ''). */
export function queryString(fields: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) if (value) params.set(name, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}
