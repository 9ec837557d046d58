import nodemailer from 'nodemailer';

/** The SMTP settings the dashboard reads (config.ts: the same SMTP_* names as receipts). */
export interface SmtpSettings {
  SMTP_HOST: string;
  SMTP_PORT: number;
  SMTP_SECURE: boolean;
  SMTP_REQUIRE_TLS: boolean;
  SMTP_TLS_VERIFY: boolean;
  SMTP_USER?: string | undefined;
  SMTP_PASSWORD?: string | undefined;
  SMTP_FROM: string;
  SMTP_TIMEOUT_MS: number;
}

export interface OutgoingMail {
  to: string;
  subject: string;
  html: string;
  text: string;
}

/**
 * Hands the dashboard's emails (password reset links) to the configured SMTP server, as
 * receipts does its receipts: pooled connections, bounded waits. Nothing connects until
 * the first email, so the dashboard starts without its mail server. `send` throws when
 * the server refuses or cannot be reached.
 */
export function smtpMailer(config: SmtpSettings) {
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
    async send(mail: OutgoingMail): Promise<void> {
      await transport.sendMail({ from: config.SMTP_FROM, ...mail });
    },
    close(): void {
      transport.close();
    },
  };
}

export type Mailer = Pick<ReturnType<typeof smtpMailer>, 'send'>;
