import {
  PaymentsRegisterReply,
  type MerchantTerms,
  type PaymentsRegisterRequest,
  type RegisterPaymentBody,
} from '@dzpay/contracts';
import { AppError } from '@dzpay/platform';
import type { RegistrationWriter } from './registration-writer.ts';
import type { PaymentsContext } from '../context.ts';
import { refusalError, refusalOf } from '../domain/charge.ts';
import { paymentView } from '../domain/payment-record.ts';
import { idempotent, storedError, type HeldKey } from '../store/idempotency.ts';
import { newAttempt, openAttempt, resumeRegistration } from '../lifecycle/open-attempt.ts';

/**
 * payments.register: a hosted-checkout payment, answered once it is committed. The
 * common case (a new key or none, terms met, the card network not known to be out) is
 * one group-committed transaction: key claimed, payment and its event inserted, the
 * key's answer stored (registrationWriter). Whatever else (a key seen before, a
 * refusal, the network out) takes the careful path: the key claimed on its own, the
 * refusal or registration run under it, its answer stored after.
 */
export function paymentRegistration(ctx: PaymentsContext, writer: RegistrationWriter) {
  const open = ctx;

  function specOf(terms: MerchantTerms, body: RegisterPaymentBody) {
    return {
      terms,
      channel: 'CHECKOUT' as const,
      reference: body.reference,
      referenceKind: 'order' as const,
      epoch: 0,
      amount: body.amount,
      language: body.language ?? 'fr',
      successUrl: body.successUrl ?? null,
      failureUrl: body.failureUrl ?? null,
      metadata: body.metadata ?? null,
    };
  }

  /** The common case in one transaction; null when it must take the careful path. */
  async function registerAtOnce({
    merchant,
    payment: body,
    idempotency,
  }: PaymentsRegisterRequest): Promise<PaymentsRegisterReply | null> {
    if (refusalOf(body, merchant)) return null;
    if (open.health[merchant.mode].isDown(open.clock().getTime())) return null;
    const { payment, checkoutToken } = newAttempt(open, specOf(merchant, body));
    const outcome = await writer({
      payment,
      key: idempotency ?? null,
      answerOf: (written) =>
        'record' in written
          ? {
              ok: true,
              value: { payment: paymentView(written.record), checkoutToken, replayed: false },
            }
          : { ok: false, error: storedError(duplicateReference(body.reference)) },
    });
    switch (outcome.kind) {
      case 'registered':
        return { payment: paymentView(outcome.record), checkoutToken, replayed: false };
      case 'duplicate':
        throw duplicateReference(body.reference);
      case 'key-taken':
        return null;
    }
  }

  async function registerOnce(
    terms: MerchantTerms,
    body: RegisterPaymentBody,
    held: HeldKey | null,
  ): Promise<PaymentsRegisterReply> {
    // An earlier try committed the payment and died unanswered: this retry answers it.
    if (held?.paymentId) {
      const resumed = await resumeRegistration(
        { ...open, withSettlement: ctx.withKeyLease },
        held.paymentId,
      );
      return {
        payment: paymentView(resumed.record),
        checkoutToken: resumed.checkoutToken,
        replayed: true,
      };
    }
    const refusal = refusalOf(body, terms);
    if (refusal) throw refusalError(refusal);
    const opened = await openAttempt(
      open,
      specOf(terms, body),
      held ? { idempotencyKey: { key: held.key, owner: held.owner } } : {},
    );
    if (!opened) throw duplicateReference(body.reference);
    return {
      payment: paymentView(opened.record),
      checkoutToken: opened.checkoutToken,
      replayed: false,
    };
  }

  return async function register(request: PaymentsRegisterRequest) {
    const atOnce = await registerAtOnce(request);
    if (atOnce) return atOnce;
    const { merchant, payment, idempotency } = request;
    const scope = { merchantId: merchant.merchantId, mode: merchant.mode };
    const { value, replayed } = await idempotent(
      ctx.idempotency,
      scope,
      idempotency,
      PaymentsRegisterReply,
      (held) => registerOnce(merchant, payment, held),
    );
    return { ...value, replayed: replayed || value.replayed };
  };
}

function duplicateReference(reference: string): AppError {
  return new AppError('PAYMENT_INSTANCE409_DUPLICATE_REFERENCE', 'reference already used', {
    details: { reference },
  });
}
