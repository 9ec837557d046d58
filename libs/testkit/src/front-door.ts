import proxy from '@fastify/http-proxy';
import Fastify from 'fastify';

export interface FrontDoor {
  /** Where payers, merchants and partners reach the stack: the gateway and, under /dashboard, the dashboard. */
  url: string;
  close(): Promise<void>;
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
}): Promise<FrontDoor> {
  const app = Fastify();
  // The services behind count limits per client address (TRUST_PROXY_HOPS=1 believes this).
  const forwarded = (request: { ip: string }, headers: Record<string, unknown>) => ({
    ...headers,
    'x-forwarded-for': request.ip,
  });
  await app.register(proxy, {
    upstream: options.dashboardUrl,
    prefix: '/dashboard',
    rewritePrefix: '/dashboard',
    replyOptions: { rewriteRequestHeaders: forwarded },
  });
  await app.register(proxy, {
    upstream: options.gatewayUrl,
    replyOptions: { rewriteRequestHeaders: forwarded },
  });
  const address = await app.listen({ host: options.host, port: options.port });
  return { url: address, close: () => app.close() };
}
