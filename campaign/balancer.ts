import { connect, createServer, type Socket } from 'node:net';

/** A loopback TCP balancer in front of the gateway replicas, as a Kubernetes Service is. */
export interface Balancer {
  url: string;
  close(): Promise<void>;
}

/**
 * Spreads connections over `upstreams` in turn; a replica that refuses the connection
 * (killed, restarting) is skipped for the next one, so only connections open on a replica
 * when it dies are cut, as behind a real load balancer.
 */
export async function startBalancer(port: number, upstreams: readonly number[]): Promise<Balancer> {
  let next = 0;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    open.add(client);
    client.once('close', () => open.delete(client));
    client.pause();
    const attempt = (tries: number): void => {
      const upstreamPort = upstreams[next++ % upstreams.length]!;
      const upstream = connect(upstreamPort, '127.0.0.1');
      upstream.once('error', () => {
        upstream.destroy();
        if (tries + 1 < upstreams.length) attempt(tries + 1);
        else client.destroy();
      });
      upstream.once('connect', () => {
        upstream.removeAllListeners('error');
        open.add(upstream);
        upstream.once('close', () => open.delete(upstream));
        const cut = () => {
          client.destroy();
          upstream.destroy();
        };
        upstream.on('error', cut);
        client.on('error', cut);
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
    };
    attempt(0);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
