import {
  Rpc,
  type ReceiptEmailRequest,
  type ReceiptEmailResult,
  type ReceiptPayment,
} from '@dzpay/contracts';
import {
  AppError,
  requestRpc,
  serveRpc,
  type Logger,
  type NatsConnection,
  type RpcServer,
} from '@dzpay/platform';
import { MailFailedError, type Mailer } from '../adapters/mailer.ts';
import type { ReceiptSendLimit } from '../adapters/send-limit.ts';
import type { SendsRepository } from '../adapters/sends-repository.ts';
import { renderReceipt } from '../domain/receipt.ts';
import { auditableRecipient, withoutAddress } from '../domain/recipient.ts';

export interface ReceiptEmailDeps {
  /** The payment as payments reports it within the merchant's scope (404 otherwise). */
  payment: (request: ReceiptEmailRequest) => Promise<ReceiptPayment>;
  limit: ReceiptSendLimit;
  mailer: Mailer;
  sends: SendsRepository;
  logger: Logger;
}

/**
 * Emails the receipt of a succeeded payment. The payment must be the merchant's, in the
 * key's mode (404), and have succeeded (409). The merchant's hourly count takes a place
 * first (429 when full); the send is logged before the mail server is asked, so no email
 * leaves unlogged; a refusal gives the place back (502).
 */
async function sendReceiptEmail(
  deps: ReceiptEmailDeps,
  request: ReceiptEmailRequest,
): Promise<ReceiptEmailResult> {
  const { merchant } = request;
  const payment = await deps.payment(request);
  if (payment.status !== 'success') {
    throw new AppError('RECEIPT409_NOT_AVAILABLE', 'payment did not succeed: no receipt', {
      details: { status: payment.status },
    });
  }
  const language = request.language ?? payment.language;
  const logged = {
    sender: merchant,
    paymentId: payment.id,
    recipient: auditableRecipient(request.email),
    language,
  };

  const taken = await deps.limit.take(merchant, merchant.emailsPerHour).catch((error: unknown) => {
    throw new AppError('SERVICE503_UNAVAILABLE', 'receipt limit unavailable, retry later', {
      details: { reason: 'redis' },
      cause: error,
    });
  });
  if (!taken.ok) {
    await deps.sends.begin({ ...logged, outcome: 'limited' });
    throw new AppError(
      'RATE429_LIMIT_EXCEEDED',
      `at most ${merchant.emailsPerHour} receipt emails per hour`,
      { details: { limit: merchant.emailsPerHour, retryAfterSeconds: taken.retryAfterSeconds } },
    );
  }

  let sendId: string;
  try {
    sendId = await deps.sends.begin({ ...logged, outcome: 'sending' });
  } catch (error) {
    await deps.limit.giveBack(merchant, merchant.emailsPerHour);
    throw error;
  }
  const receipt = renderReceipt(payment, merchant.name, language);
  try {
    const accepted = await deps.mailer.send({ to: request.email, ...receipt });
    await deps.sends
      .finish(sendId, 'sent', {
        messageId: accepted.messageId,
        response: withoutAddress(accepted.response, request.email),
      })
      // The email left: a log that could not be completed must not turn it into an error.
      .catch((err: unknown) => deps.logger.error({ err, sendId }, 'receipt sent, log not updated'));
  } catch (error) {
    if (!(error instanceof MailFailedError)) throw error;
    await deps.limit.giveBack(merchant, merchant.emailsPerHour);
    await deps.sends.finish(sendId, 'refused', {
      response: withoutAddress(error.message, request.email),
    });
    deps.logger.warn({ sendId, smtpCode: error.responseCode }, 'mail server refused a receipt');
    throw new AppError('RECEIPT502_EMAIL_FAILED', 'mail server refused the receipt; retry later', {
      details: error.responseCode === null ? {} : { smtpCode: error.responseCode },
    });
  }
  return { sent: true, language };
}

/** `receipts.email.send`, with the payment read from payments over NATS. */
export function serveReceiptEmail(
  deps: Omit<ReceiptEmailDeps, 'payment'> & {
    nats: NatsConnection;
    prefix: string;
    paymentsTimeoutMs: number;
  },
): Promise<RpcServer> {
  const payment = ({ merchant, paymentId }: ReceiptEmailRequest) =>
    requestRpc(
      deps.nats,
      deps.prefix,
      Rpc.paymentsGet,
      { merchantId: merchant.merchantId, mode: merchant.mode, id: paymentId },
      { timeoutMs: deps.paymentsTimeoutMs },
    );
  return serveRpc(
    deps.nats,
    deps.prefix,
    Rpc.receiptEmailSend,
    (request) => sendReceiptEmail({ ...deps, payment }, request),
    deps.logger,
  );
}
