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
 * The partners' servers, one path per merchant (`/m/{index}`): product lookups from a
 * catalog that sells each product once (a product is sold when its payment.success
 * webhook arrives, and a new one is stocked), and a webhook receiver written with the
 * partner SDK. Every webhook is kept for the invariants.
 */
export interface CampaignPartner {
  url: string;
  /** API_URL of merchant `index`. */
  apiUrl(index: number): string;
  /** Products a payer may pick now (unsold), and those already sold. */
  available(index: number): string[];
  sold(index: number): string[];
  webhooks: ReceivedWebhook[];
  /** From now on (until null), misbehave like this. */
  setWeather(weather: PartnerWeather | null): void;
  close(): Promise<void>;
}

const STOCK = 5;

export async function startCampaignPartner(deps: {
  merchants: number;
  apiSecret: (index: number) => string;
  signingSecret: (index: number) => string;
  rng: Rng;
}): Promise<CampaignPartner> {
  const webhooks: ReceivedWebhook[] = [];
  let weather: PartnerWeather | null = null;
  const catalogs = Array.from({ length: deps.merchants }, (_, merchant) => catalog(merchant));
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
    webhooks,
    setWeather(next) {
      weather = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A merchant's products: P{merchant}-{n}, each sold once; a sale stocks the next one. */
function catalog(merchant: number) {
  let next = 0;
  const inStock = new Set<string>();
  const sold = new Set<string>();
  const amountOf = (reference: string) => 1_000 + (Number(reference.split('-')[1]) % 7) * 250.5;
  const stock = () => inStock.add(`P${merchant}-${++next}`);
  for (let i = 0; i < STOCK; i++) stock();
  return {
    available: () => [...inStock],
    soldOnes: () => [...sold],
    sell(reference: string) {
      if (!inStock.delete(reference)) return;
      sold.add(reference);
      stock();
    },
    answer(reference: string) {
      if (sold.has(reference)) {
        return json(409, { error: 'ALREADY_PAID', errorMessage: 'this product is sold' });
      }
      if (!inStock.has(reference)) {
        return json(404, { error: 'NOT_FOUND', errorMessage: 'no such product' });
      }
      return json(200, {
        reference,
        amount: amountOf(reference),
        currency: 'DZD',
        label: `Produit ${reference}`,
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
