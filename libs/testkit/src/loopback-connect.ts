import { lookup as dnsLookup } from 'node:dns';
import http from 'node:http';
import net, { isIP, type LookupFunction } from 'node:net';

/** How the partner client opens a socket (@dzpay/platform's PartnerConnect). */
type PartnerConnect = (options: {
  host: string;
  port: number;
  lookup: LookupFunction;
}) => net.Socket;

/** Where a test's partner client tried to go: a host and the addresses it came to. */
export interface Dial {
  host: string;
  addresses: string[];
  /** Whether the socket was let through (loopback) or refused here. */
  dialed: boolean;
}

function isLoopback(address: string): boolean {
  return address === '::1' || (isIP(address) === 4 && address.startsWith('127.'));
}

/**
 * The connect function every partner-target test hands the partner client: it records
 * each target after the client's own lookup (the guard's) and lets only loopback reach
 * a socket. Whatever the guard does or fails to do, a test never sends a packet to a
 * private or public address.
 */
export function loopbackOnlyConnect(dials: Dial[]): PartnerConnect {
  return ({ host, port, lookup }) => {
    if (isIP(host) !== 0) {
      const dialed = isLoopback(host);
      dials.push({ host, addresses: [host], dialed });
      return dialed ? net.connect({ host, port }) : refusedSocket(host);
    }
    // A name: resolved by the client's lookup (the guard), or by dns.lookup if the client
    // gave none; only then is the answer checked, and only loopback is connected to.
    const resolve: LookupFunction = lookup ?? dnsLookup;
    const checked: LookupFunction = (hostname, options, callback) => {
      resolve(hostname, options, (error, address, family) => {
        if (error) {
          callback(error, '', 0);
          return;
        }
        const all = Array.isArray(address) ? address.map((entry) => entry.address) : [address];
        const dialed = all.every(isLoopback);
        dials.push({ host: hostname, addresses: all, dialed });
        if (!dialed) {
          callback(notLoopback(hostname), '', 0);
          return;
        }
        if (Array.isArray(address)) callback(null, address);
        else callback(null, address, family);
      });
    };
    return net.connect({ host, port, lookup: checked });
  };
}

function notLoopback(host: string): Error {
  return new Error(`test connect: ${host} is not loopback, not dialed`);
}

/** A socket that never connects: it fails at once with the refusal. */
function refusedSocket(host: string): net.Socket {
  const socket = new net.Socket();
  process.nextTick(() => socket.destroy(notLoopback(host)));
  return socket;
}

/** A server on a loopback address that counts the connections made to it. */
export interface CountingServer {
  port: number;
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

export async function countingServer(
  host: '127.0.0.1' | '::1',
  handler: (request: http.IncomingMessage, response: http.ServerResponse) => void,
): Promise<CountingServer> {
  const server = http.createServer(handler);
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The targets every partner request must refuse unless private targets are allowed,
 * as API_URL hosts: loopback (both families), private, link-local, site-local, 6to4
 * and a name that resolves to loopback. `loopback` ones reach the test's listeners
 * when allowed; the others never leave the test's connect function.
 */
export const PRIVATE_TARGETS = [
  { host: '127.0.0.1', loopback: '127.0.0.1' },
  { host: '[::1]', loopback: '::1' },
  { host: 'localhost', loopback: '127.0.0.1' },
  { host: '10.1.2.3', loopback: null },
  { host: '169.254.169.254', loopback: null },
  { host: '[fec0::1]', loopback: null },
  { host: '[2002:7f00:1::1]', loopback: null },
] as const;
