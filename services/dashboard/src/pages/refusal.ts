import type { Language } from '@dzpay/contracts';
import type { FastifyReply } from 'fastify';
import { isAppError } from '@dzpay/platform';
import { money } from './format.ts';
import { PaymentsMessages } from './payments-messages.ts';

/**
 * What a merchant reads when a backend refuses an action: the refusal in their
 * language. Errors that are not refusals (bugs) are thrown again for the core's error
 * page.
 */
export function refusalText(error: unknown, language: Language): string {
  if (!isAppError(error)) throw error;
  const text = PaymentsMessages[language];
  switch (error.code) {
    case 'PAYMENT_INSTANCE409_NOT_REFUNDABLE':
      return text.notRefundable;
    case 'PAYMENT_INSTANCE409_NOT_CANCELLABLE':
      return text.notCancellable;
    case 'PAYMENT_INSTANCE404_NOT_FOUND':
      return text.notFound;
    case 'RECEIPT409_NOT_AVAILABLE':
      return text.receiptNotAvailable;
    case 'RATE429_LIMIT_EXCEEDED':
      return text.rateLimited;
    case 'RECEIPT502_EMAIL_FAILED':
      return text.emailFailed;
    case 'WEBHOOK404_DELIVERY_NOT_FOUND':
      return text.deliveryNotFound;
    case 'WEBHOOK404_EVENT_NOT_FOUND':
      return text.eventNotFound;
    case 'WEBHOOK409_ENDPOINT_MISSING':
      return text.endpointMissing;
    case 'SERVICE503_UNAVAILABLE':
      return text.unavailable;
    case 'VALIDATION400_BAD_REQUEST': {
      // payments names what is left to refund: "amount must be at most <centimes>".
      const most = /amount must be at most (\d+)/.exec(JSON.stringify(error.details ?? {}));
      if (most) return text.amountTooLarge(money(Number(most[1]), language));
      return text.refused(error.message);
    }
    default:
      return text.refused(error.message);
  }
}

/**
 * A download's refusal: no page to show it on, so plain text in the user's language,
 * 503 when a service did not answer (the user may retry), 400 otherwise.
 */
export async function refuseDownload(
  reply: FastifyReply,
  error: unknown,
  language: Language,
): Promise<void> {
  const status = isAppError(error) && error.code === 'SERVICE503_UNAVAILABLE' ? 503 : 400;
  await reply.code(status).type('text/plain; charset=utf-8').send(refusalText(error, language));
}
