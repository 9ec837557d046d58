import nodemailer from 'nodemailer';
import { z } from 'zod';

const flag = z.enum(['true', 'false']).transform((value) => value === 'true');

/**
 * The SMTP_* variables of a service that sends email, to spread into its env schema:
 * the same names and defaults everywhere (usually the same relay); only the From differs.
 */
export function smtpEnv(defaultFrom: string) {
  return {
    SMTP_HOST: z.string().min(1).default('127.0.0.1'),
    SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(1025),
    /** TLS from the first byte (port 465). Otherwise STARTTLS is used when offered. */
    SMTP_SECURE: flag.default(false),
    /** Refuse to send unless the server upgrades the connection with STARTTLS. */
    SMTP_REQUIRE_TLS: flag.default(false),
    /** Check the server's certificate (off only for a development catcher). */
    SMTP_TLS_VERIFY: flag.default(true),
    SMTP_USER: z.string().min(1).optional(),
    SMTP_PASSWORD: z.string().min(1).optional(),
    /** The From of the service's emails. */
    SMTP_FROM: z.string().min(3).default(defaultFrom),
    /** A mail server that takes longer than this (connecting, or answering a command) has failed. */
    SMTP_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
  };
}

/** The parsed SMTP_* settings of `smtpEnv`. */
export type SmtpSettings = z.infer<z.ZodObject<ReturnType<typeof smtpEnv>>>;

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

/**
 * Hands a service's emails to the configured SMTP server: pooled connections, bounded
 * waits. Nothing connects until the first email, so the service starts without its mail
 * server. `send` throws when the server refuses or cannot be reached.
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
    async send(mail: OutgoingMail): Promise<MailAccepted> {
      const info = await transport.sendMail({ from: config.SMTP_FROM, ...mail });
      return { messageId: info.messageId, response: info.response };
    },
    close(): void {
      transport.close();
    },
  };
}

export type Mailer = Pick<ReturnType<typeof smtpMailer>, 'send'>;
