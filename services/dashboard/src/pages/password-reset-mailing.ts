import type { PasswordResets, ResetCandidate } from '@dzpay/accounts';
import type { Language } from '@dzpay/contracts';
import type { Logger, Mailer } from '@dzpay/platform';
import { resetLink, resetMail } from './password-reset-mail.ts';
import { issueResetToken } from './password-reset-token.ts';

type Log = Pick<Logger, 'info' | 'warn'>;

/**
 * Mails reset links off the request: the ask's answer must not wait for the link to be
 * stored and the mail server to take it, or its time would tell which emails have an
 * account. What fails is logged (never the token or the link); the asker sees the same
 * page either way.
 */
export function resetMailing(options: {
  resets: PasswordResets;
  mailer: Mailer;
  /** How long a link works. */
  minutes: number;
  publicBaseUrl: string;
  now: () => Date;
}) {
  const pending = new Set<Promise<void>>();

  async function mailLink(user: ResetCandidate, language: Language, log: Log): Promise<void> {
    const issued = issueResetToken(options.now(), options.minutes);
    await options.resets.create({
      userId: user.userId,
      tokenHash: issued.hash,
      createdAt: issued.createdAt,
      expiresAt: issued.expiresAt,
    });
    const link = resetLink(options.publicBaseUrl, issued.token, language);
    await options.mailer.send({
      to: user.email,
      ...resetMail({ language, email: user.email, link, minutes: options.minutes }),
    });
    log.info({ userId: user.userId, merchantId: user.merchantId }, 'password reset link mailed');
  }

  return {
    minutes: options.minutes,

    /** Starts mailing a link to a usable account; returns at once. */
    start(user: ResetCandidate, language: Language, log: Log): void {
      const job = mailLink(user, language, log)
        .catch((error: unknown) => {
          log.warn(
            { userId: user.userId, err: error instanceof Error ? error.message : String(error) },
            'password reset link not mailed',
          );
        })
        .finally(() => pending.delete(job));
      pending.add(job);
    },

    /** Resolves once every link started so far is mailed or given up (shutdown, tests). */
    async settled(): Promise<void> {
      await Promise.all([...pending]);
    },
  };
}

export type ResetMailing = ReturnType<typeof resetMailing>;
