/**
 * The gateway service's schema and its migrations, applied by the service at start and
 * ahead of a rollout by `dzpay migrate` (libs/stack lists every service's). No imports:
 * the gateway image's migration job reads it without this service's dependencies.
 */
export const migrations = {
  schema: 'accounts',
  folder: new URL('../migrations/', import.meta.url),
} as const;
