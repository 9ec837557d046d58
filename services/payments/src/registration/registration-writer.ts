import { randomUUID } from 'node:crypto';
import type { MerchantScope } from '@dzpay/contracts';
import { batcher, writeOutbox, type Sql, type Tx } from '@dzpay/platform';
import type { PaymentRecord } from '../domain/payment-record.ts';
import type { StoredAnswer } from '../store/idempotency-repository.ts';
import { paymentEventRow } from '../store/payment-event-writer.ts';
import { insertPayments } from '../store/payment-inserts.ts';
import { toRecord, type Row } from '../store/payment-rows.ts';
import type { NewPayment } from '../store/payments-repository.ts';

/** A hosted-checkout registration to write: its payment, and its Idempotency-Key if any. */
export interface Registration {
  payment: NewPayment;
  key: { key: string; fingerprint: string } | null;
  /** The answer the key replays, from the payment as committed (or its refusal). */
  answerOf: (outcome: { record: PaymentRecord } | { duplicate: true }) => StoredAnswer;
}

export type RegistrationOutcome =
  | { kind: 'registered'; record: PaymentRecord }
  /** The reference is used (its refusal is stored with the key, when there is one). */
  | { kind: 'duplicate' }
  /** The key existed (or another registration of this batch took it): nothing written. */
  | { kind: 'key-taken' };

/** Seals an answer to its key, as the idempotency repository stores it. */
export type AnswerSealer = (
  scope: MerchantScope,
  key: string,
  answer: StoredAnswer,
) => { response: unknown; sealed: Buffer };

/** Registrations written in one transaction at most: a batch's commit answers them all. */
const MAX_BATCH = 64;

/**
 * Writes hosted-checkout registrations by group commit: those that arrive while a batch
 * is being written go into the next one, each batch in one transaction (the keys
 * claimed, the payments and their payment.created events inserted, each key's answer
 * stored). A registration is answered only once its batch committed, so a crash before
 * the commit leaves nothing, and after it a key whose answer replays. A batch that fails
 * is written again one registration at a time (the batcher), so one refused row fails
 * only its own request.
 */
export function registrationWriter(sql: Sql, seal: AnswerSealer, clock: () => Date) {
  async function writeBatch(batch: readonly Registration[]): Promise<RegistrationOutcome[]> {
    return sql.begin(async (tx) => {
      const outcomes: (RegistrationOutcome | null)[] = batch.map(() => null);
      const claimed = await claimKeys(tx, batch);
      const writing = batch.flatMap((registration, index) => {
        if (registration.key && !claimed.has(index)) {
          outcomes[index] = { kind: 'key-taken' };
          return [];
        }
        return [{ registration, index }];
      });
      const payments = writing.map(({ registration }) => registration.payment);
      const inserted = await insertPayments(
        tx,
        payments.map((payment) => ({ payment })),
      );
      const ours = await committedBefore(
        tx,
        payments.filter((payment) => !inserted.has(payment.id)),
      );
      const events = [];
      const answers = [];
      for (const { registration, index } of writing) {
        const { id } = registration.payment;
        const earlier = ours.get(id);
        // This very registration, committed by a batch whose commit went unacknowledged
        // (the batcher then writes each alone): its payment, event and answer are there.
        if (earlier) {
          outcomes[index] = { kind: 'registered', record: earlier };
          continue;
        }
        const record = inserted.get(id);
        outcomes[index] = record ? { kind: 'registered', record } : { kind: 'duplicate' };
        if (record) events.push(paymentEventRow('payment.created', record, clock()));
        if (registration.key) {
          const answer = registration.answerOf(record ? { record } : { duplicate: true });
          const scope = {
            merchantId: registration.payment.merchantId,
            mode: registration.payment.mode,
          };
          answers.push({ scope, key: registration.key.key, paymentId: record?.id ?? null, answer });
        }
      }
      // Neither needs the other's answer: sent together, one round trip.
      await Promise.all([writeOutbox(tx, ...events), storeAnswers(tx, answers)]);
      return outcomes.map((outcome) => outcome!);
    });
  }

  /** Of payments not inserted, those that exist under their own id: written before. */
  async function committedBefore(
    tx: Tx,
    skipped: readonly NewPayment[],
  ): Promise<Map<string, PaymentRecord>> {
    if (skipped.length === 0) return new Map();
    const rows = await tx<Row[]>`
      select * from payments where id in ${tx(skipped.map((payment) => payment.id))}`;
    return new Map(rows.map((row) => [row.id as string, toRecord(row)]));
  }

  /** Claims the batch's keys; the indexes of the registrations that hold theirs now. */
  async function claimKeys(tx: Tx, batch: readonly Registration[]): Promise<Set<number>> {
    const first = new Map<string, number>();
    batch.forEach((registration, index) => {
      if (!registration.key) return;
      const { merchantId, mode } = registration.payment;
      const id = `${merchantId}:${mode}:${registration.key.key}`;
      // The same key twice in one batch: the second waits for the first's answer.
      if (!first.has(id)) first.set(id, index);
    });
    if (first.size === 0) return new Set();
    // In one order across replicas, so two batches never wait on each other's rows.
    const claims = [...first].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const rows = claims.map(([, index]) => {
      const { payment, key } = batch[index]!;
      return {
        merchant_id: payment.merchantId,
        mode: payment.mode,
        key: key!.key,
        fingerprint: key!.fingerprint,
        owner: randomUUID(),
      };
    });
    const taken = await tx<{ merchant_id: string; mode: string; key: string }[]>`
      insert into idempotency_keys ${tx(rows, 'merchant_id', 'mode', 'key', 'fingerprint', 'owner')}
      on conflict do nothing
      returning merchant_id, mode, key`;
    const held = new Set(taken.map((row) => `${row.merchant_id}:${row.mode}:${row.key}`));
    return new Set(claims.filter(([id]) => held.has(id)).map(([, index]) => index));
  }

  async function storeAnswers(
    tx: Tx,
    answers: {
      scope: MerchantScope;
      key: string;
      paymentId: string | null;
      answer: StoredAnswer;
    }[],
  ): Promise<void> {
    if (answers.length === 0) return;
    const values = answers.map(({ scope, key, paymentId, answer }) => {
      const { response, sealed } = seal(scope, key, answer);
      return [scope.merchantId, scope.mode, key, paymentId, JSON.stringify(response), sealed];
    });
    await tx`
      update idempotency_keys k
      set payment_id = x.payment_id::uuid, response = x.response::jsonb,
          response_sealed = x.sealed::bytea, lease_until = null
      from (values ${tx(values as never)}) as x(merchant_id, mode, key, payment_id, response, sealed)
      where k.merchant_id = x.merchant_id::uuid and k.mode = x.mode and k.key = x.key`;
  }

  return batcher(writeBatch, MAX_BATCH);
}

export type RegistrationWriter = ReturnType<typeof registrationWriter>;
