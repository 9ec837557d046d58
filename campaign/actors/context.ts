import type { ActorHttp } from '../http.ts';
import type { StatusSample } from '../oracle/evidence.ts';
import type { CampaignPartner } from '../partner.ts';
import type { CampaignSettings, Focus } from '../settings.ts';
import type { CampaignMerchant } from '../world.ts';

/** Writes dzpay acknowledged to an actor: each must be found afterwards (invariant 6). */
export interface Acknowledged {
  /** 201 to a registration: one payment per Idempotency-Key. */
  registrations: { merchant: number; key: string; paymentId: string; reference: string }[];
  /**
   * 200 (`succeeded`) or 202 (`pending`) to a refund: the refund dzpay says it made or
   * asked (`data.refund`), and the payment's refunded amount then.
   */
  refunds: {
    merchant: number;
    paymentId: string;
    key: string | null;
    refundId: string;
    amount: number;
    status: 'succeeded' | 'pending';
    refundedAmount: number;
  }[];
  /** 200 to a receipt: an email about this payment reached the mail server. */
  receipts: { paymentId: string; reference: string }[];
  /** 200 to a cancel: the payment ends failed, whatever the payer does afterwards. */
  cancels: { paymentId: string }[];
  /**
   * A registration refused as a duplicate reference although its reference was used by
   * no one but its own Idempotency-Key (every registration has a fresh reference): the
   * key's first try committed and its retry was refused, so the merchant can never learn
   * its payment.
   */
  keyRefusedOwnReference: { merchant: number; key: string; reference: string }[];
}

/** What every actor shares: where dzpay is, the world, and what was acknowledged. */
export interface ActorContext {
  http: ActorHttp;
  gatewayUrl: string;
  sandboxUrl: string;
  merchants: CampaignMerchant[];
  partner: CampaignPartner;
  settings: CampaignSettings;
  acks: Acknowledged;
  /** Journeys by kind and ending: `product/never-return → paid`. */
  tally(journey: string, outcome: string): void;
  /** Actors stop starting journeys at this time. */
  until: number;
  /** The area the run is weighted toward, if any. */
  focus: Focus | null;
  /** Status reads made during the run, for the oracle. */
  samples: StatusSample[];
  /** Counts what the actors did that an invariant needs (coverage floors). */
  count(counter: string): void;
}

/** Multiplies the weights of the actions of the run's focus area. */
export function focused<K extends string>(
  weights: Readonly<Record<K, number>>,
  focus: Focus | null,
  of: Partial<Record<Focus, readonly K[]>>,
): Record<K, number> {
  const boosted = new Set<string>(focus ? (of[focus] ?? []) : []);
  return Object.fromEntries(
    Object.entries(weights).map(([key, weight]) => [
      key,
      (weight as number) * (boosted.has(key) ? 4 : 1),
    ]),
  ) as Record<K, number>;
}

/** The sandbox's test cards (docs/cardnet-sandbox.md). */
export const CARDS = {
  approved: '6280580000000009',
  declined: '6280580000000017',
  lost: '6280580000000025',
  hangsAtConfirm: '6280580000000041',
} as const;
