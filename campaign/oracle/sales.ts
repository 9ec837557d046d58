import type { LedgerOrder, PaymentRow, Verdict } from './evidence.ts';
import { groupBy, keptOf, orderOf, ordersById } from './facts.ts';

export interface SaleEvidence {
  payments: readonly PaymentRow[];
  ledger: readonly LedgerOrder[];
  /**
   * The partner's product a reference names for a merchant (campaign/partner.ts
   * `productOf`, by merchant id), or null when it names none: what the partner sells once.
   */
  productOf(merchantId: string, reference: string): string | null;
}

/**
 * One sale per product as the partner sees it, not as dzpay spells it: product attempts
 * grouped by the product their reference names at the partner (a case or Unicode variant
 * is the same product); at most one success per product, and at most one of its orders
 * keeping money at the network.
 */
export function checkSales(evidence: SaleEvidence): Verdict {
  const violations: string[] = [];
  const orders = ordersById(evidence.ledger);
  const attempts = evidence.payments.filter(
    (p) => p.channel === 'AGENCY' && p.reference_kind === 'product',
  );
  const products = groupBy(attempts, (p) => {
    // A reference the partner no longer resolves is still one sale under its own spelling.
    const product = evidence.productOf(p.merchant_id, p.reference) ?? `unresolved:${p.reference}`;
    return `${p.merchant_id}/${p.mode}/${product}`;
  });
  for (const [product, sold] of products) {
    const successes = sold.filter((p) => p.status === 'success');
    if (successes.length > 1) {
      violations.push(`${product}: ${successes.length} successes (${list(successes)})`);
    }
    const keeping = sold.filter((p) => {
      const order = orderOf(p, orders);
      return order !== undefined && keptOf(order) > 0;
    });
    if (keeping.length > 1) {
      violations.push(
        `${product}: the network keeps money for ${keeping.length} attempts (${list(keeping)})`,
      );
    }
  }
  return {
    name: 'one sale per product, as the partner sees it',
    checked: products.size,
    violations,
  };
}

const list = (rows: PaymentRow[]) => rows.map((p) => `${p.reference} ${p.id}`).join(', ');
