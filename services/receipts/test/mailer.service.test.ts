import { freePort, startMailCatcher, type MailCatcher } from '@dzpay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MailFailedError, smtpMailer } from '../src/adapters/mailer.ts';
import { ReceiptsEnv } from '../src/config.ts';

let catcher: MailCatcher;
beforeAll(async () => {
  catcher = await startMailCatcher();
});
afterAll(() => catcher?.close());

const mail = { to: 'payer@example.dz', subject: 'Reçu', html: '<p>Reçu</p>', text: 'Reçu' };
const configFor = (env: Record<string, string>) =>
  ReceiptsEnv.parse({ SMTP_FROM: 'receipts@dzpay.test', SMTP_TIMEOUT_MS: '2000', ...env });

describe('smtpMailer', () => {
  it('hands a message with both parts to the server', async () => {
    const mailer = smtpMailer(configFor(catcher.env));
    try {
      const accepted = await mailer.send(mail);
      expect(accepted.response).toMatch(/^250/);
      const received = catcher.messages.at(-1)!;
      expect(received.subject).toBe('Reçu');
      expect(received.text?.trim()).toBe('Reçu');
      expect(received.html).toContain('<p>Reçu</p>');
    } finally {
      mailer.close();
    }
  });

  it('fails with the reply code when the server refuses', async () => {
    const mailer = smtpMailer(configFor(catcher.env));
    catcher.refuseWith(550);
    try {
      const failure = await mailer.send(mail).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(MailFailedError);
      expect((failure as MailFailedError).responseCode).toBe(550);
    } finally {
      catcher.refuseWith(null);
      mailer.close();
    }
  });

  it('fails without a reply code when no server listens', async () => {
    const port = await freePort();
    const mailer = smtpMailer(configFor({ SMTP_HOST: '127.0.0.1', SMTP_PORT: String(port) }));
    try {
      const failure = await mailer.send(mail).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(MailFailedError);
      expect((failure as MailFailedError).responseCode).toBeNull();
    } finally {
      mailer.close();
    }
  });
});
