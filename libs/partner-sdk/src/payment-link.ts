/**
 * The payment link a webhook's payment was made through, read from its `reference`:
 * dzpay names every payment of a link `link-{paymentLinkId}-{n}` (its n-th payment), so
 * a receiver can tell link payments apart and group them, with no new field in the body.
 * Null for any other reference. A merchant's own order references should not take that
 * shape; the merchant API also shows `paymentLinkId` on the payment itself.
 */
export function paymentLinkOf(reference: string): { paymentLinkId: string; number: number } | null {
  const match =
    /^link-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-([1-9]\d{0,15})$/.exec(
      reference,
    );
  return match ? { paymentLinkId: match[1]!, number: Number(match[2]) } : null;
}
