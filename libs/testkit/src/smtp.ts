import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server for tests (and `pnpm start`'s development catcher): keeps every
 * message it accepts, parsed.
 */
export interface MailCatcher {
  host: string;
  port: number;
  /** The receipts service's SMTP settings pointing here. */
  env: Record<string, string>;
  /** Messages accepted so far, in arrival order. */
  messages: ParsedMail[];
  /** From now on, refuse every recipient with this reply code (5xx, 4xx), or accept again (null). */
  refuseWith(code: number | null): void;
  close(): Promise<void>;
}

export async function startMailCatcher(
  options: { port?: number; onMessage?: (mail: ParsedMail) => void } = {},
): Promise<MailCatcher> {
  const messages: ParsedMail[] = [];
  let refusal: number | null = null;
  const server = new SMTPServer({
    authOptional: true,
    // Plain SMTP on loopback: no certificate to trust in tests.
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (refusal === null) {
        callback();
        return;
      }
      const error = Object.assign(new Error(`mailbox ${address.address} unavailable`), {
        responseCode: refusal,
      });
      callback(error);
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          messages.push(mail);
          options.onMessage?.(mail);
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    host: '127.0.0.1',
    port,
    env: { SMTP_HOST: '127.0.0.1', SMTP_PORT: String(port), SMTP_SECURE: 'false' },
    messages,
    refuseWith(code) {
      refusal = code;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
