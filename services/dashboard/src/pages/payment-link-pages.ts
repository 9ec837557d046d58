import type { PageKit } from '../page-kit.ts';
import type { Ask } from './ask.ts';

/** The payment links: list, create, one link with its QR image, deactivate. */
export function registerPaymentLinkPages(_kit: PageKit, _ask: Ask): void {}
