import {
  PaymentLinkCreatedResponse,
  PaymentLinkResponse,
  PaymentLinksListResponse,
  type CreatePaymentLinkInput,
  type PaymentLinksPage,
  type PaymentLinkView,
} from '@dzpay/contracts';
import type { ClientTransport } from './transport.ts';

/** GET /api/v1/payment-links: a page size (1 to 100, default 20) and the previous page's cursor. */
interface PaymentLinksListOptions {
  limit?: number;
  cursor?: string;
}

/** A merchant's payment links. */
export function paymentLinksMethods(transport: ClientTransport) {
  const { call, raw, segment, query } = transport;
  return {
    /**
     * POST /api/v1/payment-links: a fixed `amount`, or `minAmount` and `maxAmount` for
     * the payer to choose (centimes); `url` is the page to share.
     */
    async createPaymentLink(body: CreatePaymentLinkInput): Promise<PaymentLinkView> {
      const answer = await call(
        'POST',
        '/api/v1/payment-links',
        { status: 201, schema: PaymentLinkCreatedResponse },
        body,
      );
      return answer.data;
    },
    /** GET /api/v1/payment-links: one page, newest first; pass `nextCursor` back as `cursor`. */
    async listPaymentLinks(options: PaymentLinksListOptions = {}): Promise<PaymentLinksPage> {
      const answer = await call('GET', `/api/v1/payment-links${query(options)}`, {
        status: 200,
        schema: PaymentLinksListResponse,
      });
      return answer.data;
    },
    /** GET /api/v1/payment-links/{id}. */
    async getPaymentLink(id: string): Promise<PaymentLinkView> {
      const answer = await call('GET', `/api/v1/payment-links/${segment(id)}`, {
        status: 200,
        schema: PaymentLinkResponse,
      });
      return answer.data;
    },
    /** POST /api/v1/payment-links/{id}/deactivate: for good; again answers the link as it is. */
    async deactivatePaymentLink(id: string): Promise<PaymentLinkView> {
      const answer = await call('POST', `/api/v1/payment-links/${segment(id)}/deactivate`, {
        status: 200,
        schema: PaymentLinkResponse,
      });
      return answer.data;
    },
    /** GET /api/v1/payment-links/{id}/image: the link's QR code as SVG text. */
    async paymentLinkQrSvg(id: string): Promise<string> {
      const response = await raw('GET', `/api/v1/payment-links/${segment(id)}/image?format=svg`);
      return response.text();
    },
  };
}
