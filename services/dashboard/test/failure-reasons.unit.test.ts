import { actionCodeOfDecline } from '@dzpay/contracts';
import { describe, expect, it } from 'vitest';
import { failureReasonHtml } from '../src/pages/payments-list-page.ts';
import { PaymentsMessages } from '../src/pages/payments-messages.ts';

describe('a decline’s reason, said from its action code in the page’s language', () => {
  it('names the code of a bare decline and of the card network’s known words, in any language', () => {
    expect(actionCodeOfDecline('declined (action code 208)')).toBe('208');
    expect(actionCodeOfDecline('بطاقة مفقودة')).toBe('208');
    expect(actionCodeOfDecline('Carte perdue.')).toBe('208');
    expect(actionCodeOfDecline('  insufficient FUNDS ')).toBe('116');
    expect(actionCodeOfDecline('Session de paiement expirée')).toBe('-2007');
    expect(actionCodeOfDecline('declined (action code -2006)')).toBe('-2006');
    expect(actionCodeOfDecline('Votre banque a refusé')).toBeNull();
  });

  it('translates the network’s Arabic words on a French page, and French ones on an Arabic page', () => {
    expect(failureReasonHtml('بطاقة مفقودة', PaymentsMessages.fr)).toBe(
      'Refusé par le réseau de cartes : carte perdue (code 208)',
    );
    expect(failureReasonHtml('Provision insuffisante', PaymentsMessages.ar)).toBe(
      'رفضته شبكة البطاقات: رصيد غير كاف (الرمز 116)',
    );
    expect(failureReasonHtml('declined (action code 209)', PaymentsMessages.en)).toBe(
      'Declined by the card network: stolen card (code 209)',
    );
  });

  it('keeps a code it does not know as a code, and unknown words as they came', () => {
    expect(failureReasonHtml('declined (action code 999)', PaymentsMessages.fr)).toBe(
      'Refusé par le réseau de cartes (code 999)',
    );
    expect(failureReasonHtml('Refus <banque>', PaymentsMessages.fr)).toBe(
      'Le réseau de cartes a répondu : <bdi>Refus &lt;banque&gt;</bdi>',
    );
    expect(failureReasonHtml('cancelled', PaymentsMessages.ar)).toBe(
      PaymentsMessages.ar.failureReasons.cancelled,
    );
  });

  it('has a meaning in every language for every code it recognises', () => {
    for (const code of ['116', '111', '208', '209', '-2006', '2001', '-2007', '10'])
      for (const language of ['ar', 'fr', 'en'] as const)
        // The known form says the meaning after a colon; an unknown code has none.
        expect(PaymentsMessages[language].failureReasons.declinedCode(code), code).toMatch(
          new RegExp(`:.+\\(.*${code}\\)$`),
        );
    expect(PaymentsMessages.fr.failureReasons.declinedCode('999')).not.toContain(':');
    // A known code's meaning is said, not only its number.
    expect(PaymentsMessages.en.failureReasons.declinedCode('2001')).toContain(
      'card not recognised',
    );
  });
});
