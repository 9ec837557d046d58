// Payment links: schemas and NATS subjects (filled by the payment-links work).
import { z } from 'zod';
import { rpc } from './rpc-definition.ts';

/** The payment links' NATS subjects, spread into Rpc (rpc.ts). */
export const PaymentLinksRpc = {
  paymentLinksCreate: rpc('payments.links.create', z.unknown(), z.unknown()),
  paymentLinksList: rpc('payments.links.list', z.unknown(), z.unknown()),
  paymentLinksGet: rpc('payments.links.get', z.unknown(), z.unknown()),
  paymentLinksDeactivate: rpc('payments.links.deactivate', z.unknown(), z.unknown()),
  /** The payer's page: a link by its public token. */
  paymentLinkView: rpc('payments.links.view', z.unknown(), z.unknown()),
  /** The payer pays: a payment made through the link, answered with its checkout. */
  paymentLinkPay: rpc('payments.links.pay', z.unknown(), z.unknown()),
} as const;
