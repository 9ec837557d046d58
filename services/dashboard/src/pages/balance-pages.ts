import type { PageKit } from '../page-kit.ts';
import type { Ask } from './ask.ts';

/** The balance, payouts and monthly statements. */
export function registerBalancePages(_kit: PageKit, _ask: Ask): void {}
