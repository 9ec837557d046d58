import {
  smtpMailer as smtpTransport,
  type MailAccepted,
  type OutgoingMail,
  type SmtpSettings,
} from '@dzpay/platform';

/** The mail server refused the message, or could not be reached or finished with. */
export class MailFailedError extends Error {
  /** The SMTP reply code (550, 421…), when the server answered one. */
  readonly responseCode: number | null;
  constructor(cause: unknown) {
    const code = (cause as { responseCode?: unknown } | null)?.responseCode;
    super(`mail not sent: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'MailFailedError';
    this.responseCode = typeof code === 'number' ? code : null;
  }
}

/**
 * Hands receipts to the configured SMTP server over pooled connections; whatever stops a
 * message is a MailFailedError.
 */
export function smtpMailer(config: SmtpSettings) {
  const transport = smtpTransport(config);
  return {
    async send(mail: OutgoingMail): Promise<MailAccepted> {
      try {
        return await transport.send(mail);
      } catch (error) {
        throw new MailFailedError(error);
      }
    },
    close(): void {
      transport.close();
    },
  };
}

export type Mailer = Pick<ReturnType<typeof smtpMailer>, 'send'>;
