import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Messages } from '../../services/gateway/src/pages/messages.ts';
import type { CardFormVisit } from '../oracle/evidence.ts';
import { spellingOf } from '../partner.ts';
import type { Rng } from '../rng.ts';
import { cancelPayment } from './cancel.ts';
import { CARDS, focused, type ActorContext } from './context.ts';

/** Where a payer comes in. */
const ENTRIES = {
  checkout: 3,
  product: 4,
  /** Two payers on one product at once, one typing it another way. */
  'product-twice': 1,
  'qr-single': 2,
  'qr-multi': 1,
} as const;
type Entry = keyof typeof ENTRIES;

/** What the payer does on the card form, and whether they come back. */
const ENDINGS = {
  pay: 5,
  decline: 2,
  abandon: 1,
  'never-return': 4,
  'double-submit': 1,
  'return-late': 1,
  'return-twice': 1,
  reopen: 1,
  'slow-confirmation': 1,
  'merchant-cancels': 1,
} as const;
type Ending = keyof typeof ENDINGS;

/**
 * One payer after another, each on a path the seed picks: a hosted checkout the merchant
 * registers for them, a partner's product, or a single-use or multi-use QR code; then
 * paying, declined, abandoning, paying and never coming back, submitting twice, paying
 * after the window, coming back twice, reopening the link, or the card whose confirmation
 * hangs. A payer told the reference is being paid waits and tries again, as the page says.
 */
export async function runPayer(context: ActorContext, rng: Rng): Promise<void> {
  const entries = focused(ENTRIES, context.focus, {
    agency: ['product', 'product-twice', 'qr-single', 'qr-multi'],
    checkout: ['checkout'],
    cancels: ['checkout'],
    refunds: ['checkout'],
  });
  while (Date.now() < context.until) {
    const entry = rng.weighted(entries);
    let ending = rng.weighted(ENDINGS);
    // A late payer needs a window's time: near the end of the run, pay on time instead.
    const late = context.settings.windowMs + 3_000;
    if (ending === 'return-late' && context.until - Date.now() < late) ending = 'pay';
    const merchant = rng.pick(context.merchants);
    const outcome = await (
      entry === 'product-twice'
        ? twoSpellings(context, rng, merchant.index)
        : journey(context, rng, entry, ending, merchant.index)
    ).catch((error: unknown) => `error: ${String(error)}`);
    context.tally(`${entry}/${ending}`, outcome);
    await sleep(rng.int(50, 1_000));
  }
}

/**
 * Two payers on one product at the same moment, one typing the partner's reference as is
 * and one another way (letter case, Unicode forms): a partner whose lookup folds them
 * sees one product, so at most one of them may pay for it.
 */
async function twoSpellings(context: ActorContext, rng: Rng, merchantIndex: number) {
  const reference = rng.pick(context.partner.available(merchantIndex));
  const collation = context.partner.collation();
  const kind = collation === 'case-and-unicode-insensitive' && rng.chance(0.5) ? 'unicode' : 'case';
  const other = spellingOf(reference, rng, kind);
  context.count('caseVariantAttempts');
  const pair = rng.int(0, 1_000_000_000);
  const [first, second] = await Promise.all([
    journey(context, rng.fork(`pair-${pair}-a`), 'product', 'pay', merchantIndex, reference),
    journey(context, rng.fork(`pair-${pair}-b`), 'product', 'pay', merchantIndex, other),
  ]);
  return `${first} | ${second}`;
}

async function journey(
  context: ActorContext,
  rng: Rng,
  entry: Entry,
  ending: Ending,
  merchantIndex: number,
  /** The product reference to type, when the journey is given one. */
  typed?: string,
): Promise<string> {
  const checkout = await toCheckout(context, rng, entry, merchantIndex, typed);
  if (!checkout.url) return checkout.outcome;
  const pay = await context.http(`${checkout.url}/pay`, { form: {} });
  if (pay.status !== 303 || !pay.location?.startsWith(context.sandboxUrl)) {
    return `no card form (${pay.status})`;
  }
  const formUrl = pay.location;
  cardFormsOf(context).reached(formUrl);
  const cardOf = (e: Ending) =>
    e === 'decline'
      ? CARDS.declined
      : e === 'slow-confirmation'
        ? CARDS.hangsAtConfirm
        : rng.chance(0.1)
          ? CARDS.lost
          : CARDS.approved;
  switch (ending) {
    case 'abandon':
      return 'abandoned';
    case 'merchant-cancels': {
      // The merchant cancels while the payer is on the card form, who then pays anyway:
      // an acknowledged cancel must never end paid, nor the network keep the money.
      if (!checkout.paymentId) return 'abandoned';
      const cancelled = await cancelPayment(context, merchantIndex, checkout.paymentId);
      const outcome = await comeBack(context, await submitCard(context, formUrl, CARDS.approved));
      return `${cancelled}, then ${outcome}`;
    }
    case 'never-return':
      await submitCard(context, formUrl, cardOf(ending));
      return 'paid, never came back';
    case 'double-submit': {
      const [first] = await Promise.all([
        submitCard(context, formUrl, CARDS.approved),
        submitCard(context, formUrl, CARDS.approved),
      ]);
      return comeBack(context, first);
    }
    case 'return-late': {
      await sleep(context.settings.windowMs + rng.int(0, 3_000));
      return comeBack(context, await submitCard(context, formUrl, CARDS.approved));
    }
    case 'return-twice': {
      const back = await submitCard(context, formUrl, cardOf(ending));
      const [first] = await Promise.all([comeBack(context, back), comeBack(context, back)]);
      return first;
    }
    case 'reopen': {
      const outcome = await comeBack(context, await submitCard(context, formUrl, cardOf(ending)));
      await context.http(checkout.url);
      await context.http(`${checkout.url}/pay`, { form: {} });
      return `${outcome}, reopened`;
    }
    default:
      return comeBack(context, await submitCard(context, formUrl, cardOf(ending)));
  }
}

/**
 * To the hosted checkout page through the entry: the merchant registers the payment,
 * or the payer starts an attempt on a product or a QR code. Null url: the journey ended
 * there, for the reason in `outcome`.
 */
async function toCheckout(
  context: ActorContext,
  rng: Rng,
  entry: Entry,
  merchantIndex: number,
  typed?: string,
): Promise<{ url: string | null; outcome: string; paymentId?: string }> {
  const merchant = context.merchants[merchantIndex]!;
  const { gatewayUrl, http } = context;
  if (entry === 'checkout') {
    const registered = await register(context, rng, merchantIndex);
    return registered
      ? { url: registered.checkoutUrl, outcome: '', paymentId: registered.paymentId }
      : { url: null, outcome: 'not registered' };
  }
  const start =
    entry === 'product'
      ? productStart(context, rng, merchantIndex, typed)
      : `${gatewayUrl}/qr/${rng.pick(entry === 'qr-single' ? merchant.qr.singleUse : merchant.qr.multiUse)}?lang=fr`;
  // A payer told the reference is being paid comes back: an eager one refreshes the page
  // every second or two until it is free (or the window has passed), a patient one comes
  // back once or twice, later.
  const eager = rng.chance(0.5);
  const giveUpAt = Math.min(Date.now() + context.settings.windowMs + 5_000, context.until);
  for (let round = 0; eager || round < 3; round++) {
    await http(start);
    const started = await http(start, { form: entry === 'product' ? {} : { choice: '0' } });
    if (started.status === 303 && started.location?.startsWith('/checkout/')) {
      return { url: `${gatewayUrl}${started.location.split('?')[0]}`, outcome: '' };
    }
    const beingPaid = started.status === 409 && started.text.includes(Messages.fr.beingPaid);
    if (!beingPaid) return { url: null, outcome: `refused (${started.status})` };
    const wait = eager ? rng.int(700, 2_000) : rng.int(500, context.settings.windowMs + 2_000);
    if (Date.now() + wait > giveUpAt) break;
    await sleep(wait);
  }
  return { url: null, outcome: 'gave up waiting' };
}

/**
 * A product to pay: mostly one in stock, sometimes one already sold; sometimes typed
 * another way (letter case, fullwidth, decomposed accents), which a partner whose lookup
 * ignores case finds as the same product: it must still be sold once.
 */
function productStart(
  context: ActorContext,
  rng: Rng,
  merchantIndex: number,
  typed?: string,
): string {
  const sold = context.partner.sold(merchantIndex);
  const pool = sold.length > 0 && rng.chance(0.1) ? sold : context.partner.available(merchantIndex);
  let reference = typed ?? rng.pick(pool);
  const collation = context.partner.collation();
  if (typed === undefined && collation !== 'exact' && rng.chance(0.3)) {
    const kind =
      collation === 'case-and-unicode-insensitive' && rng.chance(0.5) ? 'unicode' : 'case';
    reference = spellingOf(reference, rng, kind);
    context.count('caseVariantAttempts');
  }
  return `${context.gatewayUrl}/pay/${context.merchants[merchantIndex]!.id}/${encodeURIComponent(reference)}?mode=test&lang=fr`;
}

/**
 * The merchant registers a payment with an Idempotency-Key: sometimes twice at once,
 * and again after an answer that says retry (or none). Answers the checkout URL.
 */
async function register(
  context: ActorContext,
  rng: Rng,
  merchantIndex: number,
): Promise<{ checkoutUrl: string; paymentId: string } | null> {
  const merchant = context.merchants[merchantIndex]!;
  const key = randomUUID();
  const reference = `ORD-${randomUUID().slice(0, 13)}`;
  const body = JSON.stringify({
    amount: rng.int(50, 5_000) * 100 + rng.int(0, 99),
    currency: 'DZD',
    reference,
    successUrl: 'https://shop.example/ok',
    failureUrl: 'https://shop.example/ko',
    language: rng.pick(['ar', 'fr', 'en']),
  });
  const send = () =>
    context.http(`${context.gatewayUrl}/api/v1/payments`, {
      headers: { 'x-api-key': merchant.testKey, 'idempotency-key': key },
      body,
    });
  let registered: { checkoutUrl: string; paymentId: string } | null = null;
  // An answer lost (no answer, 5xx) before a 201 for the same key: dzpay committed or
  // not, died or not; the retry must answer that same payment.
  let lost = false;
  for (let attempt = 0; attempt < 6; attempt++) {
    const answers = rng.chance(0.15) ? await Promise.all([send(), send()]) : [await send()];
    for (const answer of answers) {
      if (answer.status === 0 || answer.status >= 500) lost = true;
      if (
        answer.status === 409 &&
        answer.text.includes('PAYMENT_INSTANCE409_DUPLICATE_REFERENCE')
      ) {
        context.acks.keyRefusedOwnReference.push({ merchant: merchantIndex, key, reference });
      }
      if (answer.status !== 201) continue;
      if (lost) context.count('registrationsRetriedAfterCrash');
      const data = (answer.json() as { data: { id: string; checkoutUrl: string } }).data;
      context.acks.registrations.push({
        merchant: merchantIndex,
        key,
        paymentId: data.id,
        reference,
      });
      registered ??= { checkoutUrl: data.checkoutUrl, paymentId: data.id };
    }
    // CARDNET502 is a definite answer, stored for the key: the spec says to retry with a
    // new reference, so the merchant does not send this one again.
    const refused = answers.some((a) => a.text.includes('CARDNET502_REGISTRATION_FAILED'));
    if (refused && !registered) return null;
    const retry = answers.some((a) => a.status === 0 || a.status >= 500 || a.status === 409);
    if (registered && !rng.chance(0.1)) return registered;
    if (!retry && registered) return registered;
    if (!retry) return null;
    await sleep(rng.int(200, 2_000));
  }
  return registered;
}

/**
 * The card forms payers reached, for the oracle (held.ts): when each form's URL arrived
 * and when it was first sent. Kept per actor context, read after the run.
 */
const visits = new WeakMap<ActorContext, Map<string, CardFormVisit>>();

function cardFormsOf(context: ActorContext) {
  let byOrder = visits.get(context);
  if (!byOrder) visits.set(context, (byOrder = new Map<string, CardFormVisit>()));
  const orderOf = (formUrl: string) => new URL(formUrl).searchParams.get('mdOrder') ?? '';
  return {
    reached(formUrl: string) {
      const mdOrder = orderOf(formUrl);
      if (!byOrder.has(mdOrder))
        byOrder.set(mdOrder, { mdOrder, reachedAt: Date.now(), submittedAt: null });
    },
    submitted(formUrl: string) {
      const visit = byOrder.get(orderOf(formUrl));
      if (visit && visit.submittedAt === null) visit.submittedAt = Date.now();
    },
  };
}

/** Every card form the payers of this context reached, in the order they reached them. */
export const cardFormVisits = (context: ActorContext): CardFormVisit[] => [
  ...(visits.get(context)?.values() ?? []),
];

/** Submits the card form; answers where the card network sends the browser back. */
async function submitCard(context: ActorContext, formUrl: string, pan: string) {
  const mdOrder = new URL(formUrl).searchParams.get('mdOrder') ?? '';
  cardFormsOf(context).submitted(formUrl);
  const answer = await context.http(new URL('/payment/merchants/pay', formUrl).href, {
    form: { mdOrder, pan, expiry: '12/30', cvv: '123', cardholderName: 'AMINA BELKACEM' },
  });
  return answer.status === 303 ? answer.location : null;
}

/** The browser follows the card network back to dzpay's return route. */
async function comeBack(context: ActorContext, returnUrl: string | null): Promise<string> {
  if (!returnUrl) return 'card form refused';
  const back = await context.http(returnUrl);
  if (back.status === 303) {
    return back.location?.startsWith('https://shop.example/ok') ? 'paid' : 'not paid';
  }
  return back.status === 200 ? 'result page' : `return answered ${back.status}`;
}
