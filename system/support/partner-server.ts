import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createWebhookHandler, type WebhookEvent } from '@dzpay/partner-sdk';

/**
 * A partner's server as a test needs it: GET /{reference} answers the product or one of
 * the partner errors, chosen by the reference, and every request is remembered.
 */
export interface PartnerServer {
  url: string;
  requests: { path: string; headers: IncomingHttpHeaders }[];
  /** Webhooks received and verified with the signing secret, when one was given. */
  webhooks: WebhookEvent[];
  close(): Promise<void>;
}

const json = (status: number, body: unknown) => ({ status, body: JSON.stringify(body) });

function answerFor(reference: string): { status: number; body: string } | null {
  if (reference.startsWith('MISSING'))
    return json(404, { error: 'NOT_FOUND', errorMessage: 'no such product' });
  if (reference.startsWith('PAID'))
    return json(409, { error: 'ALREADY_PAID', errorMessage: 'already paid' });
  if (reference.startsWith('DOWN'))
    return json(503, { error: 'SERVICE_UNAVAILABLE', errorMessage: 'maintenance' });
  if (reference.startsWith('GARBAGE')) return { status: 200, body: '<html>not json</html>' };
  if (reference.startsWith('SLOW')) return null;
  return json(200, { reference, amount: 1500.5, currency: 'DZD', label: `Livre ${reference}` });
}

export async function startPartnerServer(
  options: {
    signingSecret?: string;
    /** The HTTP status of the n-th webhook call (1-based); 200 lets the SDK answer. */
    webhookStatus?: (call: number) => number;
  } = {},
): Promise<PartnerServer> {
  let webhookCalls = 0;
  const requests: PartnerServer['requests'] = [];
  const webhooks: WebhookEvent[] = [];
  // The partner's webhook receiver, as a partner would write it with dzpay's SDK.
  const receive = options.signingSecret
    ? createWebhookHandler({
        signingSecret: options.signingSecret,
        onEvent: (event) => webhooks.push(event),
      })
    : null;
  const server: Server = createServer((request, response) => {
    if (request.method === 'POST' && request.url === '/products/webhooks/platform' && receive) {
      const status = options.webhookStatus?.(++webhookCalls) ?? 200;
      if (status !== 200) {
        request.resume();
        response
          .writeHead(status, { 'content-type': 'application/json' })
          .end('{"error":"SERVICE_UNAVAILABLE"}');
        return;
      }
      return receive(request, response);
    }
    const path = decodeURIComponent((request.url ?? '/').replace(/^\/products\//, ''));
    requests.push({ path, headers: request.headers });
    const answer = answerFor(path);
    if (!answer) return; // never answers: the caller's timeout must fire
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/products`,
    requests,
    webhooks,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
