import { describe, expect, it } from 'vitest';
import { invitationLink, invitationMail } from '../src/pages/invitation-mail.ts';
import { DashboardMessages } from '../src/messages.ts';
import { TeamMessages } from '../src/pages/team-messages.ts';

const token = 'A'.repeat(43);

describe('the invitation email', () => {
  it('carries the link under the public URL, in the inviter’s language', () => {
    expect(invitationLink('https://pay.dzpay.dz/', token, 'ar')).toBe(
      `https://pay.dzpay.dz/dashboard/invite/${token}?lang=ar`,
    );
  });

  it('says who invites, to which business, with which role, for how long, in ar, fr and en', () => {
    const subjects = new Set<string>();
    for (const language of ['ar', 'fr', 'en'] as const) {
      const link = invitationLink('https://pay.dzpay.dz', token, language);
      const mail = invitationMail({
        language,
        link,
        inviter: 'owner@librairie.dz',
        merchantName: 'Librairie Tlemcen',
        role: 'accountant',
        hours: 72,
      });
      const tt = TeamMessages[language];
      subjects.add(mail.subject);
      expect(mail.subject).toBe(tt.mailSubject('Librairie Tlemcen'));
      const role = DashboardMessages[language].roleNames.accountant;
      for (const part of [mail.text, mail.html]) {
        expect(part).toContain('owner@librairie.dz');
        expect(part).toContain('Librairie Tlemcen');
        expect(part).toContain(role);
      }
      expect(mail.text).toContain(link);
      expect(mail.text).toContain(tt.mailExpiry(72));
      expect(mail.text).toContain(tt.mailIgnore);
      expect(mail.html).toContain(`href="${link}"`);
      expect(mail.html).toContain(`lang="${language}" dir="${language === 'ar' ? 'rtl' : 'ltr'}"`);
      expect(mail.html).not.toMatch(/<script|<img|src=/i);
    }
    expect(subjects.size).toBe(3);
  });

  it('escapes a merchant name in HTML', () => {
    const mail = invitationMail({
      language: 'fr',
      link: invitationLink('https://pay.dzpay.dz', token, 'fr'),
      inviter: 'owner@librairie.dz',
      merchantName: '<b>Boutique</b>',
      role: 'developer',
      hours: 72,
    });
    expect(mail.html).not.toContain('<b>');
    expect(mail.html).toContain('&lt;b&gt;Boutique&lt;/b&gt;');
  });
});
