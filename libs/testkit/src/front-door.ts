import type { Server, ServerOptions } from 'node:http';
import proxy from '@fastify/http-proxy';
import Fastify from 'fastify';

export interface FrontDoor {
  /** Where payers, merchants and partners reach the stack: the gateway and, under /dashboard, the dashboard. */
  url: string;
  /** The listening server (tests read its limits). */
  server: Server;
  close(): Promise<void>;
}

/** Fastify() options holding a server to its request limits: libs/platform's httpLimitOptions(). */
export interface RequestLimitOptions {
  requestTimeout: number;
  keepAliveTimeout: number;
  http: ServerOptions;
}

/**
 * One public address for a stack on a developer's machine, as the Ingress gives one in a
 * cluster (deploy/base/ingress.yaml): /dashboard goes to the dashboard, everything else
 * to the gateway. Bodies and answers pass through untouched.
 */
export async function startFrontDoor(options: {
  host: string;
  port: number;
  gatewayUrl: string;
  dashboardUrl: string;
  /**
   * How long a request may take to arrive. The caller passes the platform's (this
   * library sits below it); a client that stalls is dropped here as at the services.
   */
  limits: RequestLimitOptions;
}): Promise<FrontDoor> {
  const app = Fastify({ ...options.limits });
  // The services behind count limits per client address (TRUST_PROXY_HOPS=1 believes this).
  const forwarded = (request: { ip: string }, headers: Record<string, unknown>) => ({
    ...headers,
    'x-forwarded-for': request.ip,
  });
  // How long the service keeps its connection to the door open is no news to the client:
  // the door says its own keep-alive limit, on its own connection.
  const ownConnection = <H extends Record<string, unknown>>(headers: H): H => {
    const rest = { ...headers };
    delete rest.connection;
    delete rest['keep-alive'];
    return rest;
  };
  const replyOptions = { rewriteRequestHeaders: forwarded, rewriteHeaders: ownConnection };
  await app.register(proxy, {
    upstream: options.dashboardUrl,
    prefix: '/dashboard',
    rewritePrefix: '/dashboard',
    replyOptions,
  });
  await app.register(proxy, { upstream: options.gatewayUrl, replyOptions });
  const address = await app.listen({ host: options.host, port: options.port });
  return { url: address, server: app.server, close: () => app.close() };
}
