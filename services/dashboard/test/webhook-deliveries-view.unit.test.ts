import { describe, expect, it } from 'vitest';
import { deliveriesFilterOf, deliveriesFormOf } from '../src/pages/webhook-deliveries-filter.ts';
import { DeliveriesMessages } from '../src/pages/webhook-deliveries-messages.ts';
import {
  deliveriesPageHtml,
  type DeliveriesPageView,
  type DeliveryItem,
} from '../src/pages/webhook-deliveries-view.ts';

const en = DeliveriesMessages.en;
const PAYMENT_ID = '5d1f0c2e-8b4a-4c7e-a1f3-6e2b9d0c4a71';

describe('the deliveries filter form', () => {
  it('reads the form into the dispatcher’s filter', () => {
    const form = deliveriesFormOf({
      outcome: 'failing',
      type: 'payment.fail',
      paymentId: ` ${PAYMENT_ID.toUpperCase()} `,
      from: '2026-11-01',
      to: '2026-11-30',
      cursor: 'ignored here',
    });
    expect(deliveriesFilterOf(form, en)).toEqual({
      ok: true,
      filter: {
        outcome: 'failing',
        type: 'payment.fail',
        paymentId: PAYMENT_ID,
        from: '2026-11-01',
        to: '2026-11-30',
      },
    });
    expect(deliveriesFilterOf(deliveriesFormOf({ outcome: '' }), en)).toEqual({
      ok: true,
      filter: {},
    });
  });

  it('says what is wrong with each field, in the page’s language', () => {
    const refused = deliveriesFilterOf(
      { outcome: 'lost', type: 'payment.maybe', paymentId: '42', from: '2026-02-30' },
      DeliveriesMessages.fr,
    );
    expect(refused).toEqual({
      ok: false,
      problems: [
        'Résultat : choisissez une valeur de la liste.',
        'Événement : choisissez une valeur de la liste.',
        DeliveriesMessages.fr.invalidPaymentId,
        'Du : choisissez un jour.',
      ],
    });
    expect(deliveriesFilterOf({ to: '2026-13-01' }, en)).toEqual({
      ok: false,
      problems: ['Until (included): choose a day.'],
    });
    expect(deliveriesFilterOf({ from: '2026-11-02', to: '2026-11-01' }, en)).toEqual({
      ok: false,
      problems: [en.reversedDays],
    });
  });
});

const delivery = (overrides: Partial<DeliveryItem> = {}): DeliveryItem => ({
  id: '2a4b6c8d-1e3f-4a5b-8c7d-9e0f1a2b3c4d',
  eventId: '0b7e5c1a-3f1e-4d8a-9a65-2f1d7c3e9b10',
  eventType: 'payment.success',
  paymentId: PAYMENT_ID,
  reference: '<b>BOOK-1</b>',
  state: 'success',
  attempts: [
    {
      number: 1,
      startedAt: '2026-11-20T11:39:00.000Z',
      statusCode: null,
      latencyMs: 5000,
      responseExcerpt: '',
      error: 'timeout <after> 5000 ms',
    },
    {
      number: 2,
      startedAt: '2026-11-20T11:40:00.000Z',
      statusCode: 200,
      latencyMs: 20,
      responseExcerpt: '{"success":true}',
      error: null,
    },
  ],
  nextAttemptAt: null,
  createdAt: '2026-11-20T11:38:59.000Z',
  updatedAt: '2026-11-20T11:40:00.000Z',
  ...overrides,
});

const view = (overrides: Partial<DeliveriesPageView> = {}): DeliveriesPageView => ({
  language: 'fr',
  form: {},
  problems: [],
  deliveries: [delivery()],
  csrfField: '<input type="hidden" name="_csrf" value="t0k3n">',
  returnTo: '/dashboard/webhooks/deliveries?outcome=delivered',
  mayResend: () => true,
  ...overrides,
});

describe('the deliveries page', () => {
  it('shows each attempt (time in Algiers, 24 h; status or no answer; error) and a resend form', () => {
    const html = deliveriesPageHtml(view());
    expect(html).toContain('&lt;b&gt;BOOK-1&lt;/b&gt;');
    expect(html).not.toContain('<b>BOOK-1</b>');
    expect(html).toContain(`href="/dashboard/payments/${PAYMENT_ID}"`);
    // 11:39 UTC is 12:39 in Algiers, written on a 24-hour clock.
    expect(html).toMatch(/<time datetime="2026-11-20T11:39:00.000Z">[^<]*12:39[^<]*<\/time>/);
    expect(html).toContain('Pas de réponse — <bdi dir="ltr">timeout &lt;after&gt; 5000 ms</bdi>');
    expect(html).toContain('HTTP&nbsp;200');
    expect(html).toContain(
      'action="/dashboard/webhooks/deliveries/2a4b6c8d-1e3f-4a5b-8c7d-9e0f1a2b3c4d/replay"',
    );
    expect(html).toContain(
      '<input type="hidden" name="back" value="/dashboard/webhooks/deliveries?outcome=delivered">',
    );
    expect(html).toContain('name="_csrf" value="t0k3n"');
    expect(html).toContain('<span class="badge ok">Livré</span>');
  });

  it('says a test event has no payment, and when a failing one is tried next', () => {
    const html = deliveriesPageHtml(
      view({
        language: 'ar',
        deliveries: [
          delivery({
            eventType: 'webhook.test',
            paymentId: null,
            reference: null,
            state: 'pending',
            nextAttemptAt: '2026-11-20T12:00:00.000Z',
          }),
        ],
      }),
    );
    expect(html).toContain(DeliveriesMessages.ar.noPayment);
    expect(html).toContain(DeliveriesMessages.ar.nextAttemptAt);
    expect(html).not.toContain('href="/dashboard/payments/');
  });

  it('writes a status code left to right, once even when the error repeats it', () => {
    const refused = delivery({
      attempts: [
        {
          number: 1,
          startedAt: '2026-11-20T11:39:00.000Z',
          statusCode: 503,
          latencyMs: 12,
          responseExcerpt: 'down',
          error: 'HTTP 503',
        },
      ],
    });
    const html = deliveriesPageHtml(view({ language: 'ar', deliveries: [refused] }));
    expect(html).toContain('<bdi dir="ltr">HTTP&nbsp;503</bdi>');
    expect(html.match(/HTTP(&nbsp;| )503/g)).toHaveLength(1);
  });

  it('leaves the resend form out for a role that may not resend', () => {
    const html = deliveriesPageHtml(view({ mayResend: () => false }));
    expect(html).not.toContain('/replay');
  });

  it('says why there is no list, or that nothing matches', () => {
    expect(deliveriesPageHtml(view({ deliveries: [] }))).toContain(DeliveriesMessages.fr.none);
    const refused = deliveriesPageHtml(view({ deliveries: [], problems: ['<x> refusé'] }));
    expect(refused).toContain('role="alert"');
    expect(refused).toContain('&lt;x&gt; refusé');
    expect(refused).not.toContain(DeliveriesMessages.fr.none);
  });
});
