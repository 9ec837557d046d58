import { dzdToCentimes } from '@dzpay/contracts';

/**
 * The DZD amount a payer typed on a link's page (`1500`, `1500.5`, `1500,50`: a number
 * box sends the first two whatever the page's language), in centimes; null when it is no
 * amount. Grouped digits (`1 500`) are read too; anything else is refused, never guessed.
 */
export function typedCentimes(typed: string): number | null {
  const text = typed.replace(/[\s\u00a0\u202f]/g, '').replace(',', '.');
  if (!/^\d{1,10}(\.\d{1,2})?$/.test(text)) return null;
  const centimes = dzdToCentimes(Number(text));
  return centimes > 0 ? centimes : null;
}
