const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a merchant's id can name a row at all: Postgres refuses anything but a UUID in
 * a uuid column, so an id that is none is answered as not found without asking it.
 */
export const isUuid = (value: string): boolean => UUID.test(value);
