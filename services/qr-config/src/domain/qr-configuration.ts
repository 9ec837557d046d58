import type { QrConfigState, QrConfiguration } from '@dzpay/contracts';

/**
 * Whether a stored configuration applies now. An expired configuration is as good as
 * none (nothing is offered to payers), but it stays stored until replaced or unset.
 */
export function configurationState(config: QrConfiguration | null, now: Date): QrConfigState {
  if (!config) return 'none';
  if (config.expiresAt !== null && Date.parse(config.expiresAt) <= now.getTime()) return 'expired';
  return 'configured';
}
