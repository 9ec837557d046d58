import { setTimeout as sleep } from 'node:timers/promises';
import type { Attempt, Read } from './status-failover-oracle.ts';

// The status-failover scenario's traffic (bench/status-failover.ts): one payer per product
// reference paying it again and again (mostly declined, so the reference is released and
// opened anew), and a sampler reading every reference's status through the gateway, as a
// partner would, every 100–200 ms. Everything is recorded, nothing is judged here.

/** Test cards of the card network sandbox (docs/cardnet-sandbox.md). */
const CARDS = { approved: '6280580000000009', declined: '6280580000000017' } as const;

export interface TrafficOptions {
  gatewayUrl: string;
  merchantId: string;
  /** The merchant's test key, for the status endpoint. */
  key: string;
  /** Product references paid at the same time (one payer each). */
  references: number;
  /** Names the run's references. */
  run: string;
  /** Share of attempts paid with the approved card; the others are declined. */
  approvedShare?: number;
  /** How long a payer stays on the card form, ms. */
  formStayMs?: [number, number];
  /** Between two reads of a reference, ms. */
  sampleEveryMs?: [number, number];
  /** A paid reference is still read this long (it must stay paid), then no more. */
  readAfterPaidMs?: number;
}

export interface Traffic {
  attempts: Attempt[];
  reads: Read[];
  /** What broke a payer's journey, by kind: not violations, but shown in the report. */
  journeyErrors: Map<string, number>;
  /** Stops the payers (each finishes its attempt), then the sampler; resolves when all did. */
  stop(): Promise<void>;
}

const READ_TIMEOUT_MS = 15_000;
const STEP_TIMEOUT_MS = 20_000;
/** A status read of one reference still unanswered this many times: the next one waits. */
const MAX_READS_IN_FLIGHT = 4;

const between = ([low, high]: [number, number]) => low + Math.random() * (high - low);

export function startTraffic(options: TrafficOptions): Traffic {
  const approvedShare = options.approvedShare ?? 0.1;
  const formStay = options.formStayMs ?? [300, 3_000];
  const sampleEvery = options.sampleEveryMs ?? [100, 200];
  const readAfterPaid = options.readAfterPaidMs ?? 20_000;
  const attempts: Attempt[] = [];
  const reads: Read[] = [];
  const journeyErrors = new Map<string, number>();
  const tally = (kind: string) => journeyErrors.set(kind, (journeyErrors.get(kind) ?? 0) + 1);
  let payersStopped = false;
  let samplerStopped = false;
  let named = 0;
  const samplers: Promise<void>[] = [];
  const fresh = (): { name: string; retiredAt: number | null } => {
    const reference = { name: `SF-${options.run}-${named++}`, retiredAt: null as number | null };
    samplers.push(sampleLoop(reference));
    return reference;
  };

  // ------------------------------------------------------------------ the sampler

  const readStatus = async (reference: string): Promise<void> => {
    const url = `${options.gatewayUrl}/partner/payments/v1/${encodeURIComponent(reference)}/status`;
    const sentAt = performance.now();
    try {
      const response = await fetch(url, {
        headers: { 'x-api-key': options.key },
        signal: AbortSignal.timeout(READ_TIMEOUT_MS),
      });
      const text = await response.text();
      const answeredAt = performance.now();
      let stage: string | null = null;
      if (response.status === 200) {
        stage = (JSON.parse(text) as { data?: { stage?: string } }).data?.stage ?? null;
      }
      reads.push({ reference, sentAt, answeredAt, status: response.status, stage });
    } catch (error) {
      const answeredAt = performance.now();
      reads.push({ reference, sentAt, answeredAt, status: 0, stage: null, error: String(error) });
    }
  };

  /** Reads the reference every 100–200 ms without waiting for slow answers (a few at most). */
  async function sampleLoop(reference: { name: string; retiredAt: number | null }) {
    const inFlight = new Set<Promise<void>>();
    while (!samplerStopped) {
      const { retiredAt } = reference;
      if (retiredAt !== null && performance.now() - retiredAt > readAfterPaid) break;
      if (inFlight.size < MAX_READS_IN_FLIGHT) {
        const read: Promise<void> = readStatus(reference.name).finally(() => inFlight.delete(read));
        inFlight.add(read);
      }
      await sleep(between(sampleEvery));
    }
    await Promise.all(inFlight);
  }

  // ------------------------------------------------------------------ the payers

  const step = (url: string, init: RequestInit = {}) =>
    fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(STEP_TIMEOUT_MS), ...init });

  const form = (fields: Record<string, string>): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

  /** One attempt on `reference`: the product page, the card form, the card, the way back. */
  async function payOnce(reference: string): Promise<Attempt> {
    const card = Math.random() < approvedShare ? 'approved' : 'declined';
    const attempt: Attempt = {
      reference,
      openedAt: performance.now(),
      formUrlAt: null,
      formSentAt: null,
      card,
      outcome: 'error',
      paidAt: null,
    };
    const fail = (outcome: 'refused' | 'error', detail: string) => {
      tally(`${outcome}: ${detail}`);
      return Object.assign(attempt, { outcome, detail });
    };
    const pay = `${options.gatewayUrl}/pay/${options.merchantId}/${encodeURIComponent(reference)}?mode=test&lang=fr`;
    try {
      const page = await step(pay);
      await page.body?.cancel();
      attempt.openedAt = performance.now();
      const started = await step(pay, form({}));
      await started.body?.cancel();
      if (started.status === 409) return fail('refused', 'POST /pay 409');
      const checkout = started.headers.get('location');
      if (started.status !== 303 || !checkout?.startsWith('/checkout/')) {
        return fail('error', `POST /pay ${started.status}`);
      }
      const checkoutUrl = `${options.gatewayUrl}${checkout.split('?')[0]}`;
      const toForm = await step(`${checkoutUrl}/pay`, form({}));
      await toForm.body?.cancel();
      const formUrl = toForm.headers.get('location');
      // The card network's form: its order number in the query.
      if (toForm.status !== 303 || !formUrl || !URL.parse(formUrl)?.searchParams.has('mdOrder')) {
        return fail('error', `POST /checkout/pay ${toForm.status}`);
      }
      attempt.formUrlAt = performance.now();
      const formPage = await step(formUrl);
      await formPage.body?.cancel();
      await sleep(between(formStay));
      attempt.formSentAt = performance.now();
      const submitted = await step(
        new URL('/payment/merchants/pay', formUrl).href,
        form({
          mdOrder: new URL(formUrl).searchParams.get('mdOrder') ?? '',
          pan: CARDS[card],
          expiry: '12/30',
          cvv: '123',
          cardholderName: 'AMINA BELKACEM',
        }),
      );
      await submitted.body?.cancel();
      const back = submitted.headers.get('location');
      if (submitted.status !== 303 || !back) {
        attempt.outcome = 'unknown';
        attempt.detail = `card form ${submitted.status}`;
        tally(`unknown: card form ${submitted.status}`);
        return attempt;
      }
      return await comeBack(attempt, back);
    } catch (error) {
      const name = error instanceof Error ? error.name : 'Error';
      const stage = attempt.formSentAt !== null ? 'unknown' : 'error';
      tally(`${stage}: ${name}`);
      return Object.assign(attempt, { outcome: stage, detail: String(error) });
    }
  }

  /**
   * The browser back at the return route, which settles with the card network; it asks
   * again (a refresh) while the page says nothing final or the gateway fails.
   */
  async function comeBack(attempt: Attempt, returnUrl: string): Promise<Attempt> {
    let last = '';
    for (let asked = 0; asked < 20; asked++) {
      const answer = await step(returnUrl).catch((error: unknown) => String(error));
      if (typeof answer === 'string') last = answer;
      else {
        const html = await answer.text();
        last = `return ${answer.status}`;
        // A success or failure URL of the merchant: the payment is decided, as the card says.
        const decided =
          answer.status === 303
            ? attempt.card
            : html.includes('class="status success"')
              ? 'approved'
              : html.includes('class="status failed"')
                ? 'declined'
                : null;
        if (answer.status < 400 && decided !== null) {
          attempt.outcome = decided === 'approved' ? 'paid' : 'declined';
          if (decided === 'approved') attempt.paidAt = performance.now();
          return attempt;
        }
      }
      await sleep(500);
    }
    tally(`unknown: ${last}`);
    return Object.assign(attempt, { outcome: 'unknown', detail: last });
  }

  /**
   * One payer on one reference at a time: after a declined card it pays the same one
   * again (released, then a new attempt live); after a paid one, or a reference it could
   * not open or whose outcome it never learned, a new reference.
   */
  async function payerLoop(): Promise<void> {
    let reference = fresh();
    while (!payersStopped) {
      const attempt = await payOnce(reference.name);
      attempts.push(attempt);
      if (attempt.outcome !== 'declined' && attempt.outcome !== 'error') {
        reference.retiredAt = performance.now();
        reference = fresh();
      }
      await sleep(attempt.outcome === 'error' ? 1_000 : between([200, 1_000]));
    }
    reference.retiredAt = performance.now();
  }

  const payers = Array.from({ length: options.references }, () => payerLoop());
  let stopping: Promise<void> | undefined;
  return {
    attempts,
    reads,
    journeyErrors,
    stop: () =>
      (stopping ??= (async () => {
        payersStopped = true;
        await Promise.all(payers);
        // The last attempts' reads: a second more of them.
        await sleep(1_000);
        samplerStopped = true;
        await Promise.all(samplers);
      })()),
  };
}
