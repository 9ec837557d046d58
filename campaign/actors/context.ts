import type { ActorHttp } from '../http.ts';
import type { CampaignPartner } from '../partner.ts';
import type { CampaignSettings } from '../settings.ts';
import type { CampaignMerchant } from '../world.ts';

/** Writes dzpay acknowledged to an actor: each must be found afterwards (invariant 6). */
export interface Acknowledged {
  /** 201 to a registration: one payment per Idempotency-Key. */
  registrations: { merchant: number; key: string; paymentId: string; reference: string }[];
  /** 200 to a refund: the payment's refunded amount was at least this then. */
  refunds: { merchant: number; paymentId: string; key: string; refundedAmount: number }[];
  /** 200 to a receipt: an email about this payment reached the mail server. */
  receipts: { paymentId: string; reference: string }[];
  /** 200 to a cancel: the payment ends failed, whatever the payer does afterwards. */
  cancels: { paymentId: string }[];
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
}

/** The sandbox's test cards (docs/cardnet-sandbox.md). */
export const CARDS = {
  approved: '6280580000000009',
  declined: '6280580000000017',
  lost: '6280580000000025',
  hangsAtConfirm: '6280580000000041',
} as const;
