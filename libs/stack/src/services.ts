/**
 * dzpay's own services, in start order. The gateway comes after the back-end services (it
 * publishes the partner directory they read) and stops before them (its requests still
 * need them); the dashboard, which only asks, comes last and stops first.
 */
export const SERVICES = [
  'qr-config',
  'payments',
  'status',
  'webhook-dispatcher',
  'receipts',
  'gateway',
  'dashboard',
] as const;
export type ServiceName = (typeof SERVICES)[number];
