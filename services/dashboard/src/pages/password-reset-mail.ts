import type { Language } from '@dzpay/contracts';
import { linkMail, type LinkMail } from './link-mail.ts';
import { DashboardPaths } from '../navigation.ts';
import { resetTextsOf } from './password-reset-messages.ts';

/**
 * The link a reset email carries: the dashboard's page under the public base URL (the
 * ingress sends /dashboard there), in the language the link was asked in.
 */
export function resetLink(publicBaseUrl: string, token: string, language: Language): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${DashboardPaths.passwordReset}/${token}?lang=${language}`;
}

/** The reset email in one language (link-mail.ts lays it out). */
export function resetMail(options: {
  language: Language;
  email: string;
  link: string;
  minutes: number;
}): LinkMail {
  const t = resetTextsOf(options.language);
  return linkMail(options.language, options.link, {
    subject: t.mailSubject,
    hello: t.mailHello,
    intro: t.mailIntro(options.email),
    button: t.mailButton,
    expiry: t.mailExpiry(options.minutes),
    ignore: t.mailIgnore,
  });
}
