/** A test card as the payer types it on the card network's form. */
export interface Card {
  pan: string;
  expiry?: string;
  cvv?: string;
}

export const CARDS = {
  approved: { pan: '6280580000000009' },
  insufficientFunds: { pan: '6280580000000017' },
  lost: { pan: '6280580000000025' },
  hangsAtConfirm: { pan: '6280580000000041' },
} as const satisfies Record<string, Card>;

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
  redirect: 'manual' as const,
});

/** The payer presses pay on the checkout page (its own empty form): the answer as is. */
export const pressPay = (checkoutUrl: string) => fetch(`${checkoutUrl}/pay`, form({}));

function location(response: Response): string {
  const target = response.headers.get('location');
  if (response.status !== 303 || !target) {
    throw new Error(`expected a 303 redirect, got ${response.status}`);
  }
  return new URL(target, response.url).href;
}

/** Submits the card network's form for the order behind `formUrl`; answers its redirect. */
export function submitCard(
  formUrl: string,
  card: Card,
  cardholderName = 'AMINA BELKACEM',
): Promise<Response> {
  return fetch(
    new URL('/payment/merchants/pay', formUrl),
    form({
      mdOrder: new URL(formUrl).searchParams.get('mdOrder')!,
      pan: card.pan,
      expiry: card.expiry ?? '12/30',
      cvv: card.cvv ?? '123',
      cardholderName,
    }),
  );
}

/**
 * A payer without a browser: opens the checkout link, presses pay, fills the card
 * network's form, and follows the way back. Returns where the payer lands.
 */
export async function payByHttp(
  checkoutUrl: string,
  card: Card,
  options: { submitTwice?: boolean } = {},
) {
  const page = await fetch(checkoutUrl);
  if (page.status !== 200) throw new Error(`checkout page answered ${page.status}`);
  const formUrl = location(await pressPay(checkoutUrl));
  const cardForm = await fetch(formUrl);
  if (cardForm.status !== 200) throw new Error(`card form answered ${cardForm.status}`);

  const mdOrder = new URL(formUrl).searchParams.get('mdOrder')!;
  const submissions = options.submitTwice
    ? await Promise.all([submitCard(formUrl, card), submitCard(formUrl, card)])
    : [await submitCard(formUrl, card)];
  const returnUrls = submissions.map(location);
  const landings = await Promise.all(returnUrls.map((url) => fetch(url, { redirect: 'manual' })));
  const landing = landings[0]!;
  return {
    orderId: mdOrder,
    returnUrl: returnUrls[0]!,
    landing,
    finalUrl: landing.status === 303 ? location(landing) : null,
  };
}
