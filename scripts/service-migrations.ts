/** Every service's schema and migrations folder, for `pnpm db:migrate` and `pnpm start`. */
export const SERVICE_MIGRATIONS = [
  { schema: 'accounts', folder: new URL('../services/gateway/migrations/', import.meta.url) },
  { schema: 'qr', folder: new URL('../services/qr-config/migrations/', import.meta.url) },
  { schema: 'payments', folder: new URL('../services/payments/migrations/', import.meta.url) },
  { schema: 'status', folder: new URL('../services/status/migrations/', import.meta.url) },
  {
    schema: 'webhooks',
    folder: new URL('../services/webhook-dispatcher/migrations/', import.meta.url),
  },
  { schema: 'receipts', folder: new URL('../services/receipts/migrations/', import.meta.url) },
] as const;
