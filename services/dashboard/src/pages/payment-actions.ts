import { createHash, randomUUID } from 'node:crypto';
import { EmailReceiptBody, Language, Rpc, type PaymentView } from '@dzpay/contracts';
import { AppError } from '@dzpay/platform';
import { recordDashboardAudit } from './audit-record.ts';
import { DashboardPaths } from '../navigation.ts';
import type { PageContext, PageKit } from '../page-kit.ts';
import type { Ask } from './ask.ts';
import { fieldOf } from './form.ts';
import { money } from './format.ts';
import { paymentPath } from './payments-list-page.ts';
import { PaymentsMessages, type PaymentsText } from './payments-messages.ts';
import { parseRefundAmount } from './refund-amount.ts';
import { refundConfirmHtml } from './refund-confirm.ts';
import { refusalText } from './refusal.ts';

type Params = { id: string; deliveryId?: string };

/**
 * The forms of a payment's page: refund, cancel, replay a webhook, email the receipt.
 * Each answers with a redirect back to the payment and a notice saying what happened
 * (or why it was refused), so a reload never submits again.
 */
export function registerPaymentActions(kit: PageKit, ask: Ask): void {
  const base = `${DashboardPaths.payments}/:id`;

  /** The typed amount read against what is left, or the reason it is refused. */
  const refundAmountOf = (context: PageContext, payment: PaymentView, text: PaymentsText) => {
    const typed = fieldOf(context.request.body, 'amount');
    const left = money(payment.total - payment.refundedAmount, context.language);
    const parsed = parseRefundAmount(typed, payment.total - payment.refundedAmount);
    if (parsed.ok) return parsed.centimes;
    if (parsed.reason === 'missing') return refuse(text.amountMissing(left));
    if (parsed.reason === 'invalid') return refuse(text.amountInvalid);
    if (parsed.reason === 'ambiguous') return refuse(text.amountAmbiguous(typed ?? ''));
    return refuse(text.amountTooLarge(left));
  };

  // A refund is never one click: the payment's form leads here, to the amount, the fee
  // and what is left, and only this page's form makes it.
  kit.post(`${base}/refund/confirm`, async (context) => {
    const { id } = context.request.params as Params;
    const text = PaymentsMessages[context.language];
    try {
      const payment = await ask(Rpc.paymentsGet, { ...context.scope, id });
      const centimes = refundAmountOf(context, payment, text);
      return context.page(
        text.refundConfirmTitle,
        refundConfirmHtml(
          {
            payment,
            centimes,
            idempotencyKey: fieldOf(context.request.body, 'idempotencyKey') ?? randomUUID(),
            csrfField: context.csrfField(),
            language: context.language,
          },
          text,
        ),
      );
    } catch (error) {
      await backWithRefusal(context, id, error);
      return;
    }
  });

  kit.post(`${base}/refund`, (context) =>
    act(context, async (id, text) => {
      if (fieldOf(context.request.body, 'confirmed') !== 'yes')
        return refuse(text.refundUnconfirmed);
      const payment = await ask(Rpc.paymentsGet, { ...context.scope, id });
      const centimes = refundAmountOf(context, payment, text);
      const key = fieldOf(context.request.body, 'idempotencyKey');
      const refunded = await ask(Rpc.paymentsRefund, {
        ...context.scope,
        id,
        amount: centimes,
        ...(key ? { idempotency: refundIdempotency(key, id, centimes) } : {}),
      });
      // The form sent again (its key's stored answer): audited when it was made.
      if (!refunded.replayed) {
        await recordDashboardAudit(kit.deps, context, {
          action: 'payment.refund',
          target: id,
          details: {
            amount: refunded.refund.amount,
            refundStatus: refunded.refund.status,
            paymentStatus: refunded.status,
          },
        });
      }
      if (refunded.refund.status === 'pending') {
        return text.refundPending(money(refunded.refund.amount, context.language));
      }
      return text.refundDone(money(refunded.refund.amount, context.language));
    }),
  );

  kit.post(`${base}/cancel`, (context) =>
    act(context, async (id, text) => {
      const cancelled = await ask(Rpc.paymentsCancel, { ...context.scope, id });
      // Cancelled before (a second click): audited by the cancel that did it.
      if (!cancelled.unchanged && !cancelled.replayed) {
        await recordDashboardAudit(kit.deps, context, { action: 'payment.cancel', target: id });
      }
      return text.cancelDone;
    }),
  );

  kit.post(`${base}/deliveries/:deliveryId/replay`, (context) =>
    act(context, async (_id, text) => {
      const { deliveryId } = context.request.params as Params;
      await ask(Rpc.deliveryReplay, { ...context.scope, deliveryId: deliveryId ?? '' });
      return text.replayed;
    }),
  );

  kit.post(`${base}/receipt`, (context) =>
    act(context, async (id, text) => {
      const language = Language.safeParse(fieldOf(context.request.body, 'language'));
      const body = EmailReceiptBody.safeParse({
        email: fieldOf(context.request.body, 'email') ?? '',
        ...(language.success ? { language: language.data } : {}),
      });
      if (!body.success) return refuse(text.emailInvalid);
      const merchant = await kit.deps.accounts.findMerchant(context.scope.merchantId);
      if (!merchant) throw new AppError('SERVICE503_UNAVAILABLE', 'merchant not readable');
      await ask(Rpc.receiptEmailSend, {
        merchant: {
          ...context.scope,
          name: merchant.name,
          emailsPerHour: merchant.receiptEmailsPerHour,
          // The send log names who asked: here the dashboard user, as the API names its key.
          keyId: context.session.userId,
        },
        paymentId: id,
        email: body.data.email,
        ...(body.data.language ? { language: body.data.language } : {}),
      });
      return text.receiptSent(body.data.email);
    }),
  );
}

/** A refusal the form itself found (before asking any service). */
class FormRefusal extends Error {}
const refuse = (message: string): never => {
  throw new FormRefusal(message);
};

async function act(
  context: PageContext,
  action: (id: string, text: (typeof PaymentsMessages)[Language]) => Promise<string>,
): Promise<void> {
  const { id } = context.request.params as Params;
  const text = PaymentsMessages[context.language];
  let done: string;
  try {
    done = await action(id, text);
  } catch (error) {
    return backWithRefusal(context, id, error);
  }
  await context.flash('ok', done);
  await context.reply.redirect(paymentPath(id), 303);
}

/** Back to the payment with why the form was refused (its own check or a service's). */
async function backWithRefusal(context: PageContext, id: string, error: unknown): Promise<void> {
  await context.flash(
    'error',
    error instanceof FormRefusal ? error.message : refusalText(error, context.language),
  );
  await context.reply.redirect(paymentPath(id), 303);
}

/**
 * The refund's Idempotency-Key: the form's own key, fingerprinted with the payment and
 * the amount, so a double click refunds once and the same form cannot refund another amount.
 */
function refundIdempotency(key: string, id: string, centimes: number) {
  const fingerprint = createHash('sha256')
    .update(`dashboard refund ${id} ${centimes}`)
    .digest('hex');
  return { key: `dashboard:${key.slice(0, 200)}`, fingerprint };
}
