import { Language, type CheckoutView } from '@dzpay/contracts';
import type { FastifyReply } from 'fastify';
import type { Page } from '../../pages/layout.ts';

// How the payer's pages (checkout, product references, QR codes, payment links) and the
// error pages shown in their place are answered: one language rule, one set of headers.

/** The payer's choice of language, else the payment's. */
export function languageOf(
  requested: string | undefined,
  view?: Pick<CheckoutView, 'language'>,
): Language {
  const parsed = Language.safeParse(requested);
  return parsed.success ? parsed.data : (view?.language ?? 'fr');
}

export function sendPage(reply: FastifyReply, page: Page, status = 200): FastifyReply {
  return (
    reply
      .code(status)
      .header('content-security-policy', page.csp)
      // frame-ancestors 'none' (in the CSP) for browsers that read it, this for the others.
      .header('x-frame-options', 'DENY')
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .type('text/html; charset=utf-8')
      .send(page.html)
  );
}
