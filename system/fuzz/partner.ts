import { createServer, type Server } from 'node:http';

/**
 * A well-behaved partner server for the fuzz world: every product reference exists
 * (except those starting MISSING or PAID, which get the partner errors), and every
 * webhook is acknowledged. It never answers 5xx or late, so a 5xx of the gateway is
 * the gateway's own.
 */
export interface FuzzPartner {
  url: string;
  close(): Promise<void>;
}

function answerFor(reference: string): { status: number; body: unknown } {
  if (reference.startsWith('MISSING'))
    return { status: 404, body: { error: 'NOT_FOUND', errorMessage: 'no such product' } };
  if (reference.startsWith('PAID'))
    return { status: 409, body: { error: 'ALREADY_PAID', errorMessage: 'already paid' } };
  return {
    status: 200,
    body: { reference, amount: 1500.5, currency: 'DZD', label: 'Livre' },
  };
}

export async function startFuzzPartner(): Promise<FuzzPartner> {
  const server: Server = createServer((request, response) => {
    const reply = (status: number, body: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.method === 'POST') {
      request.resume();
      reply(200, { success: true });
      return;
    }
    const path = (request.url ?? '/').replace(/^\/products\//, '');
    let reference: string;
    try {
      reference = decodeURIComponent(path);
    } catch {
      reference = path;
    }
    const { status, body } = answerFor(reference);
    reply(status, body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/products`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
