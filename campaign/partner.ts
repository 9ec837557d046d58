import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createWebhookHandler, type WebhookEvent } from '@dzpay/partner-sdk';
import type { Rng } from './rng.ts';

/** A webhook as the partner received it (verified by the SDK), with when. */
export interface ReceivedWebhook {
  merchant: number;
  event: WebhookEvent;
  at: number;
}

/** How the partner misbehaves during a partner fault window. */
export interface PartnerWeather {
  /** Product lookups: share answered slowly (1-3 s), with 503, or not within dzpay's 4 s. */
  slow: number;
  unavailable: number;
  hang: number;
  /** Webhooks answered 500 instead of taken. */
  webhookFailures: number;
}

/**
 * How the partner's database compares references, in its lookups and when a webhook
 * marks a product sold. Every partner answers the reference as it stored it.
 * - `exact`: byte for byte (a `_bin` collation).
 * - `case-insensitive`: letter case ignored, Unicode forms not (MySQL's `_ci`
 *   collations over one normal form): `p0-1` is `P0-1`, a decomposed `é` is not `é`.
 * - `case-and-unicode-insensitive`: NFKC and case folded (normalised SKUs): fullwidth
 *   `Ｐ０-１`, decomposed accents and any letter case name the same product.
 */
export type LookupCollation = 'exact' | 'case-insensitive' | 'case-and-unicode-insensitive';

/** What the partner compares of a reference under `collation`. */
function collationKey(reference: string, collation: LookupCollation): string {
  switch (collation) {
    case 'exact':
      return reference;
    case 'case-insensitive':
      return reference.toLowerCase();
    case 'case-and-unicode-insensitive':
      return reference.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
  }
}

/**
 * Another spelling of `reference` that a payer may type for the same product: `case`
 * flips the case of some letters (at least one when it has any); `unicode` does that
 * too, writes some characters fullwidth and decomposes accented letters (NFD). Which
 * partner still finds the product: `case` for every collation but `exact`; `unicode`
 * only for `case-and-unicode-insensitive`. dzpay itself folds no case and turns NFD
 * into NFC before asking, so a decomposed-only spelling finds even an exact partner.
 */
export function spellingOf(reference: string, rng: Rng, kind: 'case' | 'unicode'): string {
  const letters = [...reference];
  const cased = letters.flatMap((c, i) => (c.toLowerCase() !== c.toUpperCase() ? [i] : []));
  const forced = cased.length > 0 ? rng.pick(cased) : -1;
  const spelled = letters.map((c, i) => {
    const flipped = c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
    const letter = i === forced || rng.chance(0.5) ? flipped : c;
    if (kind === 'case' || !rng.chance(0.3)) return letter;
    return /^[!-~]$/.test(letter) ? fullwidth(letter) : letter;
  });
  return kind === 'unicode' ? spelled.join('').normalize('NFD') : spelled.join('');
}

/** The fullwidth form of a printable ASCII character (U+FF01 to U+FF5E), which NFKC folds back. */
function fullwidth(ascii: string): string {
  return String.fromCodePoint(ascii.codePointAt(0)! - 0x21 + 0xff01);
}

/**
 * The partners' servers, one path per merchant (`/m/{index}`): product lookups from a
 * catalog that sells each product once (a product is sold when its payment.success
 * webhook arrives, and a new one is stocked), and a webhook receiver written with the
 * partner SDK. Every webhook is kept for the invariants. The catalog compares
 * references by its collation (`exact` unless told otherwise).
 */
export interface CampaignPartner {
  url: string;
  /** API_URL of merchant `index`. */
  apiUrl(index: number): string;
  /** Products a payer may pick now (unsold), and those already sold. */
  available(index: number): string[];
  sold(index: number): string[];
  webhooks: ReceivedWebhook[];
  /**
   * The product of merchant `index` that `reference` names under the collation now in
   * force, as the partner stored it (sold or not); null when none: what the invariants
   * count one sale per.
   */
  productOf(index: number, reference: string): string | null;
  /** From now on (until null), misbehave like this. */
  setWeather(weather: PartnerWeather | null): void;
  /** The collation lookups and sales compare references by, from now on. */
  setCollation(collation: LookupCollation): void;
  collation(): LookupCollation;
  close(): Promise<void>;
}

const STOCK = 5;

export async function startCampaignPartner(deps: {
  merchants: number;
  apiSecret: (index: number) => string;
  signingSecret: (index: number) => string;
  rng: Rng;
  /** How references compare at the start of the run (default `exact`). */
  collation?: LookupCollation;
  /** Products named `Pé{merchant}-{n}`, so a decomposed spelling differs from them. */
  accentedNames?: boolean;
}): Promise<CampaignPartner> {
  const webhooks: ReceivedWebhook[] = [];
  let weather: PartnerWeather | null = null;
  let collation = deps.collation ?? 'exact';
  const prefix = deps.accentedNames ? 'P\u00e9' : 'P';
  const catalogs = Array.from({ length: deps.merchants }, (_, merchant) =>
    catalog(`${prefix}${merchant}`, () => collation),
  );
  const receivers = catalogs.map((shop, merchant) =>
    createWebhookHandler({
      signingSecret: deps.signingSecret(merchant),
      onEvent: (event) => {
        webhooks.push({ merchant, event, at: Date.now() });
        if (event.type === 'payment.success') shop.sell(event.data.reference);
      },
    }),
  );

  async function lookup(merchant: number, reference: string, request: IncomingMessage) {
    if (request.headers.authorization !== `Bearer ${deps.apiSecret(merchant)}`) {
      return json(401, { error: 'UNAUTHORIZED', errorMessage: 'bad secret' });
    }
    if (weather) {
      const draw = deps.rng.float();
      if (draw < weather.hang) await sleep(6_000);
      else if (draw < weather.hang + weather.unavailable) {
        return json(503, { error: 'SERVICE_UNAVAILABLE', errorMessage: 'maintenance' });
      } else if (draw < weather.hang + weather.unavailable + weather.slow) {
        await sleep(1_000 + deps.rng.int(0, 2_000));
      }
    }
    return catalogs[merchant]!.answer(reference);
  }

  const server = createServer((request, response) => {
    const match = /^\/m\/(\d+)\/(.+)$/.exec(request.url ?? '');
    const merchant = match ? Number(match[1]) : -1;
    if (!match || !catalogs[merchant]) return send(response, json(404, { error: 'NOT_FOUND' }));
    if (request.method === 'POST' && match[2] === 'webhooks/platform') {
      if (weather && deps.rng.chance(weather.webhookFailures)) {
        request.resume();
        return send(response, json(500, { error: 'SERVICE_UNAVAILABLE' }));
      }
      return receivers[merchant]!(request, response);
    }
    lookup(merchant, decodeURIComponent(match[2]!), request).then(
      (answer) => send(response, answer),
      () => response.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    apiUrl: (index) => `${url}/m/${index}`,
    available: (index) => catalogs[index]!.available(),
    sold: (index) => catalogs[index]!.soldOnes(),
    productOf: (index, reference) => catalogs[index]!.find(reference),
    webhooks,
    setWeather(next) {
      weather = next;
    },
    setCollation(next) {
      collation = next;
    },
    collation: () => collation,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A merchant's products: {name}-{n}, each sold once; a sale stocks the next one. A
 * reference is found under the collation in force, and answered as stored.
 */
function catalog(name: string, collation: () => LookupCollation) {
  let next = 0;
  const inStock = new Set<string>();
  const sold = new Set<string>();
  const amountOf = (reference: string) => 1_000 + (Number(reference.split('-')[1]) % 7) * 250.5;
  const stock = () => inStock.add(`${name}-${++next}`);
  for (let i = 0; i < STOCK; i++) stock();
  /** The stored product `reference` names, as `SELECT sku … WHERE sku = ?` finds it. */
  function find(reference: string): string | null {
    const key = collationKey(reference, collation());
    for (const stored of [...inStock, ...sold]) {
      if (collationKey(stored, collation()) === key) return stored;
    }
    return null;
  }
  return {
    available: () => [...inStock],
    soldOnes: () => [...sold],
    find,
    sell(reference: string) {
      const stored = find(reference);
      if (stored === null || !inStock.delete(stored)) return;
      sold.add(stored);
      stock();
    },
    answer(reference: string) {
      const stored = find(reference);
      if (stored !== null && sold.has(stored)) {
        return json(409, { error: 'ALREADY_PAID', errorMessage: 'this product is sold' });
      }
      if (stored === null) {
        return json(404, { error: 'NOT_FOUND', errorMessage: 'no such product' });
      }
      return json(200, {
        reference: stored,
        amount: amountOf(stored),
        currency: 'DZD',
        label: `Produit ${stored}`,
      });
    },
  };
}

function json(status: number, body: unknown) {
  return { status, body: JSON.stringify(body) };
}

function send(response: ServerResponse, answer: { status: number; body: string }): void {
  response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
}
