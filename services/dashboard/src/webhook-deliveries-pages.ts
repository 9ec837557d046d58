import type { PageKit } from './page-kit.ts';
import type { DashboardDeps } from './settings.ts';

/** Every webhook delivery of the merchant, with filters and a resend button. */
export function webhookDeliveriesPages(_kit: PageKit, _dash: DashboardDeps): void {}
