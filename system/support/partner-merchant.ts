import { partnerSecretOwner, sealSecret, signingSecretOwner } from '@dzpay/platform';
import { accountsRepository } from '@dzpay/accounts';
import { submitCard, type Card } from './payer.ts';
import type { Stack } from './stack.ts';

/**
 * Points a merchant's test mode at a partner server, as `pnpm dzpay merchant partner`
 * would: its URL, API secret and webhook signing secret, sealed under `secretsKey`.
 */
export async function connectPartner(
  stack: Stack,
  merchantId: string,
  partner: { url: string; apiSecret?: string; signingSecret: string },
  secretsKey: string,
): Promise<void> {
  const key = Buffer.from(secretsKey, 'base64');
  const accounts = accountsRepository(stack.gateway.runtime.sql);
  await accounts.setPartnerEndpoint(
    merchantId,
    'test',
    partner.url,
    sealSecret(partner.apiSecret ?? 'api-secret', key, partnerSecretOwner(merchantId, 'test')),
  );
  await accounts.setSigningSecret(
    merchantId,
    'test',
    sealSecret(partner.signingSecret, key, signingSecretOwner(merchantId, 'test')),
    null,
  );
}

/**
 * A payer without a browser paying a product reference: the pay button, the checkout's
 * pay button, the card network's form, and the way back. Without a card, stops once
 * the reference is locked.
 */
export async function payProductReference(
  stack: Stack,
  merchantId: string,
  reference: string,
  card?: Card,
): Promise<void> {
  const started = await fetch(`${stack.gateway.url}/pay/${merchantId}/${reference}?mode=test`, {
    method: 'POST',
    redirect: 'manual',
  });
  if (!card) return;
  const checkoutUrl = new URL(started.headers.get('location')!, stack.gateway.url).href.split(
    '?',
  )[0]!;
  const formUrl = (
    await fetch(`${checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' })
  ).headers.get('location')!;
  const back = await submitCard(formUrl, card);
  await fetch(back.headers.get('location')!, { redirect: 'manual' });
}
