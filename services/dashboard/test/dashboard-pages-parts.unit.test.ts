import type { PaymentView, WebhookEventView } from '@dzpay/contracts';
import { describe, expect, it } from 'vitest';
import { pageLinks, trailOf } from '../src/pages/pagination.ts';
import { timelineOf } from '../src/pages/payment-timeline.ts';
import { filterFormOf, listFilterOf } from '../src/pages/payments-filter.ts';
import { parseQrForm } from '../src/pages/qr-form.ts';
import { parseRefundAmount } from '../src/pages/refund-amount.ts';
import { barChartSvg } from '../src/pages/report-chart.ts';
import { dateTime } from '../src/pages/format.ts';
import { formatDateTime } from '../src/format.ts';
import { money } from '../src/pages/format.ts';
import { PaymentsMessages } from '../src/pages/payments-messages.ts';
import { statusLabel } from '../src/pages/status-label.ts';

describe('the report chart (SVG drawn on the server)', () => {
  const bars = [
    { label: '1 Nov', value: 100_00, valueText: '100 DA' },
    { label: '2 Nov', value: 400_00, valueText: '400 DA' },
    { label: '3 Nov', value: 0, valueText: '0 DA' },
  ];
  const heights = (svg: string) =>
    [...svg.matchAll(/<rect x="([\d.]+)" y="[\d.]+" width="[\d.]+" height="([\d.]+)"/g)].map(
      (m) => ({ x: Number(m[1]), h: Number(m[2]) }),
    );

  it('is one accessible image: role, aria-label with the summary, <title> and <desc>', () => {
    const svg = barChartSvg({ title: 'Collected per day', summary: 'Best day: 2 Nov', bars });
    expect(svg).toMatch(/^<svg [^>]*role="img"/);
    expect(svg).toContain('aria-label="Collected per day. Best day: 2 Nov"');
    expect(svg).toContain('<title>Collected per day</title>');
    expect(svg).toContain('<desc>Best day: 2 Nov</desc>');
    expect(svg).not.toContain('style=');
  });

  it('draws bars proportional to their values, the highest filling the plot', () => {
    const drawn = heights(barChartSvg({ title: 't', summary: 's', bars, height: 220 }));
    expect(drawn.map((b) => b.h)).toEqual([44, 176, 0]);
    expect(drawn[0]!.x).toBeLessThan(drawn[1]!.x);
  });

  it('right to left: the first day is drawn on the right', () => {
    const drawn = heights(barChartSvg({ title: 't', summary: 's', bars, rtl: true }));
    expect(drawn[0]!.x).toBeGreaterThan(drawn[1]!.x);
    expect(drawn[1]!.x).toBeGreaterThan(drawn[2]!.x);
  });

  it('has an amount scale: the highest day and its half, on the side the chart starts', () => {
    const axisText = (value: number) => `${value / 100} DA`;
    const ltr = barChartSvg({ title: 't', summary: 's', bars, axisText });
    expect(ltr).toContain('>400 DA</text>');
    expect(ltr).toContain('>200 DA</text>');
    expect(ltr).toMatch(/direction="ltr" text-anchor="start" font-size="10" fill="#4a5565">400 DA/);
    const rtl = barChartSvg({ title: 't', summary: 's', bars, axisText, rtl: true });
    expect(rtl).toMatch(/x="334" [^>]*direction="rtl" text-anchor="start"[^>]*>400 DA/);
    // Nothing collected: no scale to draw.
    const none = barChartSvg({ title: 't', summary: 's', bars: [bars[2]!], axisText });
    expect(none).not.toContain('0 DA</text>');
  });

  it('labels at most five days under the axis, so they stay apart on a phone', () => {
    const month = Array.from({ length: 30 }, (_, i) => ({
      label: `d${i + 1}`,
      value: i,
      valueText: String(i),
    }));
    const labels = [
      ...barChartSvg({ title: 't', summary: 's', bars: month }).matchAll(/>d\d+<\/text>/g),
    ];
    expect(labels.length).toBeLessThanOrEqual(5);
  });

  it('nothing collected, negative values and no day at all draw no NaN', () => {
    const flat = barChartSvg({
      title: 't',
      summary: 's',
      bars: [{ label: 'a', value: -5, valueText: '-5' }],
    });
    expect(flat).not.toContain('NaN');
    expect(heights(flat)).toEqual([expect.objectContaining({ h: 0 })]);
    expect(barChartSvg({ title: 't', summary: 's', bars: [] })).not.toContain('NaN');
  });

  it('escapes labels and titles', () => {
    const svg = barChartSvg({
      title: '<b>',
      summary: '"x"',
      bars: [{ label: '<i>', value: 1, valueText: '&' }],
    });
    expect(svg).not.toContain('<b>');
    expect(svg).not.toContain('<i>');
    expect(svg).toContain('&lt;i&gt;: &amp;');
  });
});

describe('the refund amount typed in DZD', () => {
  it('reads dots, commas and French grouping, into integer centimes', () => {
    expect(parseRefundAmount('1500', 1_000_000)).toEqual({ ok: true, centimes: 150_000 });
    expect(parseRefundAmount('1 500,5', 1_000_000)).toEqual({ ok: true, centimes: 150_050 });
    expect(parseRefundAmount('0.29', 1_000_000)).toEqual({ ok: true, centimes: 29 });
    expect(parseRefundAmount('1\u202f000.10', 1_000_000)).toEqual({ ok: true, centimes: 100_010 });
  });

  it('a blank is refused: a refund always names its amount', () => {
    expect(parseRefundAmount(undefined, 500)).toEqual({ ok: false, reason: 'missing' });
    expect(parseRefundAmount('  ', 500)).toEqual({ ok: false, reason: 'missing' });
  });

  it('reads an amount copied from the page, currency and direction marks included', () => {
    const arabic = money(150_050, 'ar'); // "‏1.500,50 د.ج.‏"
    expect(parseRefundAmount(arabic, 1_000_000)).toEqual({ ok: true, centimes: 150_050 });
    expect(parseRefundAmount(money(150_050, 'fr'), 1_000_000)).toEqual({
      ok: true,
      centimes: 150_050,
    });
    expect(parseRefundAmount(money(150_050, 'en'), 1_000_000)).toEqual({
      ok: true,
      centimes: 150_050,
    });
    expect(parseRefundAmount('1 500,50 DA', 1_000_000)).toEqual({ ok: true, centimes: 150_050 });
    expect(parseRefundAmount('DA', 1_000_000)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('reads the grouping of either language, the last mark being the decimal one', () => {
    expect(parseRefundAmount('1.500,50', 1_000_000)).toEqual({ ok: true, centimes: 150_050 });
    expect(parseRefundAmount('1,500.50', 1_000_000)).toEqual({ ok: true, centimes: 150_050 });
    expect(parseRefundAmount('1,500,000', 1e9)).toEqual({ ok: true, centimes: 150_000_000 });
    expect(parseRefundAmount('12,5', 1_000_000)).toEqual({ ok: true, centimes: 1_250 });
  });

  it('refuses an amount that reads two ways ("1,500": 1 500 or 1,5) instead of guessing', () => {
    for (const typed of ['1,500', '1.500', '1.005'])
      expect(parseRefundAmount(typed, 1_000_000)).toEqual({ ok: false, reason: 'ambiguous' });
  });

  it('refuses three decimals, zero, signs, words, bad grouping and more than is left', () => {
    for (const typed of ['1.0051', '0', '-5', '1e3', 'abc', '1,2,3', '1.50.000', '1.500,5,0'])
      expect(parseRefundAmount(typed, 1_000_000)).toEqual({ ok: false, reason: 'invalid' });
    expect(parseRefundAmount('10.01', 1000)).toEqual({ ok: false, reason: 'tooLarge' });
    expect(parseRefundAmount('10', 1000)).toEqual({ ok: true, centimes: 1000 });
  });
});

describe('the payments filter form', () => {
  it('maps the form to the API filter: prefix, an included "until" day in Algiers, metadata', () => {
    const form = filterFormOf({
      status: 'success',
      reference: 'INV-',
      match: 'prefix',
      createdFrom: '2026-11-01',
      createdTo: '2026-11-30',
      metadataKey: 'order',
      metadataValue: '42',
      unknown: 'ignored',
    });
    expect(listFilterOf(form)).toEqual({
      ok: true,
      filter: {
        status: 'success',
        referencePrefix: 'INV-',
        // Days are Algiers days (UTC+01:00), as the lists and reports count them.
        createdFrom: '2026-10-31T23:00:00.000Z',
        createdTo: '2026-11-30T23:00:00.000Z',
        metadataKey: 'order',
        metadataValue: '42',
      },
    });
  });

  it('blank fields are no filter; an exact reference is the default', () => {
    expect(listFilterOf(filterFormOf({ status: '', reference: 'A-1', channel: ' ' }))).toEqual({
      ok: true,
      filter: { reference: 'A-1' },
    });
  });

  it('names the form field at fault with the API rule', () => {
    const bad = listFilterOf(
      filterFormOf({ status: 'paid', createdFrom: '2026-13-45', metadataValue: 'x' }),
    );
    expect(bad.ok).toBe(false);
    const fields = bad.ok ? [] : bad.problems.map((p) => p.field);
    expect(fields).toEqual(['status', 'createdFrom']);
    const lone = listFilterOf(filterFormOf({ metadataValue: 'x' }));
    expect(lone.ok ? [] : lone.problems.map((p) => p.field)).toEqual(['metadataKey']);
    const reversed = listFilterOf(
      filterFormOf({ createdFrom: '2026-11-10', createdTo: '2026-11-01' }),
    );
    expect(reversed.ok ? [] : reversed.problems.map((p) => p.field)).toEqual(['createdTo']);
  });
});

describe('cursor pagination carried in links', () => {
  it('goes forward twice and back twice to the first page', () => {
    const first = pageLinks(undefined, undefined, 'C1');
    expect(first.previous).toBeNull();
    const second = pageLinks(first.next!.cursor, first.next!.back, 'C2');
    const third = pageLinks(second.next!.cursor, second.next!.back, null);
    expect(third.next).toBeNull();
    expect(third.previous).toEqual({ cursor: 'C1', back: first.next!.back });
    expect(trailOf(second.next!.back)).toEqual(['', 'C1']);
    const back = pageLinks(third.previous!.cursor, third.previous!.back, 'C2');
    expect(back.previous).toEqual({});
  });

  it('ignores a tampered trail', () => {
    expect(trailOf('not base64 json')).toEqual([]);
    expect(trailOf(Buffer.from('{"a":1}').toString('base64url'))).toEqual([]);
  });
});

describe('the payment timeline', () => {
  const payment = {
    id: '7b0c9a52-4f8e-4d7b-9a53-3f1d2c4b5a61',
    createdAt: '2026-11-20T10:00:00.000Z',
    paidAt: '2026-11-20T10:02:00.000Z',
  } as PaymentView;
  const event = (
    type: WebhookEventView['type'],
    createdAt: string,
    extra: Partial<WebhookEventView> = {},
  ): WebhookEventView => ({
    id: 'e',
    type,
    createdAt,
    paymentId: payment.id,
    data: {},
    delivery: null,
    ...extra,
  });

  it('orders creation, payment and events in time, with the refund amount in centimes', () => {
    const entries = timelineOf(payment, [
      event('payment.refunded', '2026-11-21T09:00:00.000Z', { data: { amount: 500.5 } }),
      event('payment.success', '2026-11-20T10:02:01.000Z'),
      event('payment.success', '2026-11-20T10:03:00.000Z', { paymentId: 'another' }),
    ]);
    expect(entries.map((e) => (e.kind === 'event' ? e.type : e.kind))).toEqual([
      'created',
      'paid',
      'payment.success',
      'payment.refunded',
    ]);
    expect(entries[3]).toMatchObject({ refundCentimes: 50_050 });
  });
});

describe('the QR code form', () => {
  const now = new Date('2026-11-21T12:00:00.000Z');
  const range = { minAmount: 5_000, maxAmount: 10_000_000 };

  it('reads amounts one per line (comma decimals) and an expiry in Algeria time', () => {
    const parsed = parseQrForm(
      'QR-1',
      { amounts: '1500\n 2 500,50 \n\n', expiresAt: '2026-12-01T10:00', singleUse: 'on' },
      now,
      range,
      'fr',
    );
    expect(parsed).toEqual({
      ok: true,
      command: {
        token: 'QR-1',
        amounts: [150_000, 250_050],
        expiresAt: '2026-12-01T09:00:00.000Z',
        singleUse: true,
      },
    });
  });

  it('refuses with the API rules, in the page language', () => {
    const tooSmall = parseQrForm('QR-1', { amounts: '10' }, now, range, 'en');
    expect(tooSmall).toEqual({
      ok: false,
      problems: [expect.stringMatching(/between .*50.* and .*100,000/)],
    });
    const past = parseQrForm(
      'QR-1',
      { amounts: '100', expiresAt: '2026-11-01T10:00' },
      now,
      range,
      'fr',
    );
    expect(past).toEqual({
      ok: false,
      problems: ['La date d’expiration doit être dans le futur.'],
    });
    expect(parseQrForm('QR-1', { amounts: 'abc' }, now, range, 'ar')).toEqual({
      ok: false,
      problems: ['«abc» ليس مبلغا بالدينار.'],
    });
    expect(parseQrForm('QR-1', { amounts: '' }, now, range, 'en')).toEqual({
      ok: false,
      problems: ['Give at least one amount.'],
    }); // "1,500" is 1 500 DZD in English and 1,50 DZD in French: asked again, never guessed.
    const ambiguous = parseQrForm('QR-1', { amounts: '1,500' }, now, range, 'fr');
    expect(ambiguous).toEqual({ ok: false, problems: [expect.stringMatching(/deux façons/)] });
    const grouped = parseQrForm('QR-1', { amounts: '1.500,50' }, now, range, 'fr');
    expect(grouped).toMatchObject({ ok: true, command: { amounts: [150_050] } });
  });
});

describe('dates and times on every page', () => {
  it('use a 24-hour clock in Algiers time in every language, the same on every page', () => {
    const at = '2026-11-20T11:39:00.000Z'; // 12:39 in Algiers
    for (const language of ['fr', 'ar', 'en'] as const) {
      const text = dateTime(at, language);
      expect(text, language).toContain('12:39');
      expect(text, language).not.toMatch(/PM|AM|م|ص/);
      expect(text, language).toBe(formatDateTime(new Date(at), language));
    }
  });
});

describe('sentences ending with an amount', () => {
  it('end with one period, also in Arabic where the amount brings its own', () => {
    const arabic = PaymentsMessages.ar.refundDone(money(150_050, 'ar'));
    expect(arabic.replace(/[\u200e\u200f]/gu, '')).toMatch(/د\.ج\.$/);
    expect(arabic.replace(/[\u200e\u200f]/gu, '')).not.toContain('..');
    expect(PaymentsMessages.fr.refundDone(money(150_050, 'fr'))).toMatch(/DA\.$/);
  });
});

describe('a status as the pages name it', () => {
  it('says a paid payment is partly refunded once part of it is', () => {
    const fr = PaymentsMessages.fr;
    expect(statusLabel({ status: 'success', refundedAmount: 0 }, fr)).toBe('Payé');
    expect(statusLabel({ status: 'success', refundedAmount: 5 }, fr)).toBe('Remboursé en partie');
    expect(statusLabel({ status: 'refunded', refundedAmount: 500 }, fr)).toBe(fr.statuses.refunded);
    expect(statusLabel({ status: 'created', refundedAmount: 0 }, PaymentsMessages.ar)).toBe(
      'بانتظار الدفع',
    );
  });
});
