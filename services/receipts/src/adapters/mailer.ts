import nodemailer from 'nodemailer';
import type { ReceiptsEnv } from '../config.ts';

export interface OutgoingMail {
  to: string;
  subject: string;
  html: string;
  text: string;
}

/** What the mail server said when it took the message. */
export interface MailAccepted {
  messageId: string;
  response: string;
}

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

/** Hands receipts to the configured SMTP server over pooled connections. */
export function smtpMailer(config: ReceiptsEnv) {
  const transport = nodemailer.createTransport({
    pool: true,
    maxConnections: 2,
    host: config.SMTP_HOST,
    port: config.SMTP_PORT,
    secure: config.SMTP_SECURE,
    requireTLS: config.SMTP_REQUIRE_TLS,
    tls: { rejectUnauthorized: config.SMTP_TLS_VERIFY },
    ...(config.SMTP_USER
      ? { auth: { user: config.SMTP_USER, pass: config.SMTP_PASSWORD ?? '' } }
      : {}),
    connectionTimeout: config.SMTP_TIMEOUT_MS,
    greetingTimeout: config.SMTP_TIMEOUT_MS,
    socketTimeout: config.SMTP_TIMEOUT_MS,
  });

  return {
    async send(mail: OutgoingMail): Promise<MailAccepted> {
      try {
        const info = await transport.sendMail({ from: config.SMTP_FROM, ...mail });
        return { messageId: info.messageId, response: info.response };
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
