import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorResponse, type PartnerResponse } from './product.ts';
import { receiveWebhook, type WebhookReceiverOptions } from './receiver.ts';
import { signingSecretsOf } from './verify.ts';

export type WebhookHandlerOptions = WebhookReceiverOptions & {
  /** Larger bodies are answered 413 (dzpay's events are a few kilobytes). */
  maxBodyBytes?: number;
};

/**
 * A `node:http` request handler for dzpay's webhooks, behaving as the Fastify plugin does.
 * It answers whatever path it is given: pass it to `http.createServer`, or call it from
 * your router for `POST /webhooks/platform`, before anything has read the body.
 */
export function createWebhookHandler(
  options: WebhookHandlerOptions,
): (request: IncomingMessage, response: ServerResponse) => void {
  signingSecretsOf(options);
  const settings: WebhookHandlerOptions = {
    ...options,
    onError:
      options.onError ??
      ((error, event) => {
        process.stderr.write(`dzpay webhook ${event.id}: onEvent failed: ${String(error)}\n`);
      }),
  };
  return (request, response) => {
    handle(request, response, settings).catch(() => {
      // The request itself broke (the connection was reset mid-body): nobody to answer.
      response.destroy();
    });
  };
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  options: WebhookHandlerOptions,
): Promise<void> {
  if (request.method !== 'POST') {
    request.resume();
    send(response, errorResponse(405, 'METHOD_NOT_ALLOWED', 'dzpay posts its webhooks'));
    return;
  }
  const rawBody = await readBody(request, options.maxBodyBytes ?? 1024 * 1024);
  if (rawBody === null) {
    send(response, errorResponse(413, 'PAYLOAD_TOO_LARGE', 'the body is too large'));
    return;
  }
  send(response, await receiveWebhook(options, rawBody, request.headers));
}

/** The whole body, or null once it passes the limit (the rest is drained, not kept). */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    request.on('end', () => resolve(size <= limit ? Buffer.concat(chunks) : null));
    request.on('error', reject);
  });
}

function send(response: ServerResponse, answer: PartnerResponse<unknown>): void {
  const body = JSON.stringify(answer.body);
  response
    .writeHead(answer.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    })
    .end(body);
}
