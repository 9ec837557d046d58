import { randomUUID } from 'node:crypto';
import type { Language, ReceiptSender } from '@dzpay/contracts';
import type { Sql } from '@dzpay/platform';

export type SendOutcome = 'sent' | 'refused' | 'limited';

/** The server's reply or the failure, as much as the log keeps. */
const MAX_RESPONSE_CHARS = 500;

/** The receipts schema: one row per receipt email asked for. */
export function sendsRepository(sql: Sql) {
  return {
    /** Records a send about to be made (or refused by the limit); returns its id. */
    async begin(entry: {
      sender: ReceiptSender;
      paymentId: string;
      recipient: string;
      language: Language;
      outcome: 'sending' | 'limited';
    }): Promise<string> {
      const id = randomUUID();
      await sql`
        insert into sends (id, merchant_id, mode, key_id, payment_id, recipient, language, outcome)
        values (${id}, ${entry.sender.merchantId}, ${entry.sender.mode}, ${entry.sender.keyId},
          ${entry.paymentId}, ${entry.recipient}, ${entry.language}, ${entry.outcome})`;
      return id;
    },

    /** Records how a send ended. */
    async finish(
      id: string,
      outcome: Exclude<SendOutcome, 'limited'>,
      detail: { response: string; messageId?: string },
    ): Promise<void> {
      await sql`
        update sends
        set outcome = ${outcome}, smtp_response = ${bounded(detail.response)},
            message_id = ${detail.messageId ?? null}, updated_at = now()
        where id = ${id}`;
    },
  };
}

export type SendsRepository = ReturnType<typeof sendsRepository>;

// eslint-disable-next-line no-control-regex -- Postgres text refuses NUL
const NUL = /\u0000/g;

function bounded(text: string): string {
  return Array.from(text.replace(NUL, '')).slice(0, MAX_RESPONSE_CHARS).join('');
}
