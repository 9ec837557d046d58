import type { PageKit } from './page-kit.ts';
import type { DashboardDeps } from './settings.ts';

/** The audit log: who refunded, cancelled, issued a key, changed the team. */
export function auditPages(_kit: PageKit, _dash: DashboardDeps): void {}
