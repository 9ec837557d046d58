import type { DashboardRole } from '@dzpay/accounts';
import type { Language } from '@dzpay/contracts';
import { linkMail, type LinkMail } from './link-mail.ts';
import { textsOf } from '../messages.ts';
import { DashboardPaths } from '../navigation.ts';
import { TeamMessages } from './team-messages.ts';

/**
 * The link an invitation email carries: the dashboard's page under the public base URL
 * (the ingress sends /dashboard there), in the inviter's language.
 */
export function invitationLink(publicBaseUrl: string, token: string, language: Language): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${DashboardPaths.invite}/${token}?lang=${language}`;
}

/** The invitation email, in the inviter's language (link-mail.ts lays it out). */
export function invitationMail(options: {
  language: Language;
  link: string;
  inviter: string;
  merchantName: string;
  role: DashboardRole;
  hours: number;
}): LinkMail {
  const tt = TeamMessages[options.language];
  const role = textsOf(options.language).roleNames[options.role];
  return linkMail(options.language, options.link, {
    subject: tt.mailSubject(options.merchantName),
    hello: tt.mailHello,
    intro: tt.mailIntro(options.inviter, options.merchantName, role),
    button: tt.mailButton,
    expiry: tt.mailExpiry(options.hours),
    ignore: tt.mailIgnore,
  });
}
