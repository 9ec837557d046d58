import { execFile, execFileSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { promisify } from 'node:util';

// Deliberately free of vitest: the fault campaign builds its network from a plain `node` CLI.

const run = promisify(execFile);

/** A host of the lab: a network namespace with one address, reached through the lab's router. */
export interface LabHost {
  readonly name: string;
  /** The namespace to run its processes in (`ip netns exec <ns> …`). */
  readonly ns: string;
  readonly address: string;
}

/**
 * A small network of the test's own, inside this machine: a router namespace with one
 * link to each host namespace and one to this machine's own namespace (so the harness
 * and the services reach every host, at 10.B.n.2). Partitions are routing rules in the
 * router that drop packets silently, as a cut cable or a firewall does: no reset, the
 * sockets on both sides just stop hearing from each other, until the cut heals.
 */
export interface NetLab {
  addHost(name: string): Promise<LabHost>;
  /** Drops every packet between the two hosts, both ways; answers how to end this cut alone. */
  cut(a: LabHost, b: LabHost): Promise<Mend>;
  /** Drops every packet to and from the host: its peers and this machine lose it. */
  isolate(host: LabHost): Promise<Mend>;
  /**
   * Another address of the host (10.B.n.(20 + id)) for one client of this machine to
   * reach it by, so cutAddress can cut that client alone.
   */
  alias(host: LabHost, id: number): Promise<string>;
  /** Drops every packet to and from this address. */
  cutAddress(address: string): Promise<Mend>;
  /** Removes every cut. */
  heal(): Promise<void>;
  stop(): Promise<void>;
}

/** Ends one cut, leaving the others. */
export type Mend = () => Promise<void>;

/** Namespaces are named after the process that made them, so a crashed run's can be told. */
const PREFIX = 'dzlab-';

const liveLabs = new Set<() => void>();
let exitHookInstalled = false;

/**
 * Builds the lab (needs root, as `ip netns` does). Namespaces a crashed run left behind
 * (their process gone) are removed first. Two labs started at the same moment (test
 * files in parallel) may draw the same 10.x range: the second then draws again.
 */
export async function startNetLab(): Promise<NetLab> {
  await removeOrphans();
  for (let attempt = 1; ; attempt++) {
    try {
      return await buildNetLab();
    } catch (error) {
      if (attempt >= 5) throw error;
    }
  }
}

async function buildNetLab(): Promise<NetLab> {
  const tag = `${process.pid}-${randomBytes(2).toString('hex')}`;
  const router = `${PREFIX}${tag}-r`;
  const uplink = `dzl${randomBytes(3).toString('hex')}`;
  const octet = await freeOctet();
  const net = (n: number, host: number) => `10.${octet}.${n}.${host}`;
  const hosts: LabHost[] = [];
  let added = 0;
  const inForce = new Set<string[]>();
  const namespaces = [router];

  const removeAll = () => {
    for (const ns of namespaces) {
      try {
        execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
      } catch {
        // gone already
      }
    }
  };
  liveLabs.add(removeAll);
  installExitHook();

  const ip = (...args: string[]) => run('ip', args);
  const inRouter = (...args: string[]) => ip('-n', router, ...args);
  try {
    await ip('netns', 'add', router);
    await inRouter('link', 'set', 'lo', 'up');
    await run('ip', ['netns', 'exec', router, 'sysctl', '-q', '-w', 'net.ipv4.ip_forward=1']);
    await ip('link', 'add', uplink, 'type', 'veth', 'peer', 'name', 'up0', 'netns', router);
    await ip('addr', 'add', `${net(0, 1)}/30`, 'dev', uplink);
    await inRouter('addr', 'add', `${net(0, 2)}/30`, 'dev', 'up0');
    await ip('link', 'set', uplink, 'up');
    await inRouter('link', 'set', 'up0', 'up');
    await ip('route', 'add', `10.${octet}.0.0/16`, 'via', net(0, 2));
  } catch (error) {
    removeAll();
    liveLabs.delete(removeAll);
    throw new Error(`the network lab could not be built (root and iproute2 needed)`, {
      cause: error,
    });
  }

  const subnet = (host: LabHost) => `${host.address.replace(/\.\d+$/, '.0')}/24`;
  const addRule = async (...selector: string[]) => {
    await inRouter('rule', 'add', ...selector, 'blackhole');
    inForce.add(selector);
    return selector;
  };
  const removeRule = async (selector: string[]) => {
    if (!inForce.delete(selector)) return;
    await inRouter('rule', 'del', ...selector, 'blackhole');
  };
  const cutting = async (...selectors: string[][]): Promise<Mend> => {
    const added: string[][] = [];
    for (const selector of selectors) added.push(await addRule(...selector));
    return async () => {
      for (const selector of added) await removeRule(selector);
    };
  };

  return {
    async addHost(name) {
      // Taken before any await: hosts may be added concurrently.
      const n = ++added;
      const ns = `${PREFIX}${tag}-h${n}`;
      namespaces.push(ns);
      await ip('netns', 'add', ns);
      await ip('-n', ns, 'link', 'set', 'lo', 'up');
      await inRouter('link', 'add', `h${n}`, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
      await inRouter('addr', 'add', `${net(n, 1)}/24`, 'dev', `h${n}`);
      await inRouter('link', 'set', `h${n}`, 'up');
      await ip('-n', ns, 'addr', 'add', `${net(n, 2)}/24`, 'dev', 'eth0');
      await ip('-n', ns, 'link', 'set', 'eth0', 'up');
      await ip('-n', ns, 'route', 'add', 'default', 'via', net(n, 1));
      const host = { name, ns, address: net(n, 2) };
      hosts.push(host);
      return host;
    },
    cut: (a, b) =>
      cutting(['from', subnet(a), 'to', subnet(b)], ['from', subnet(b), 'to', subnet(a)]),
    isolate: (host) => cutting(['from', subnet(host)], ['to', subnet(host)]),
    async alias(host, id) {
      if (id < 0 || id > 200) throw new Error(`alias ${id}: 0 to 200 only`);
      const address = host.address.replace(/\.\d+$/, `.${20 + id}`);
      await ip('-n', host.ns, 'addr', 'add', `${address}/24`, 'dev', 'eth0');
      return address;
    },
    cutAddress: (address) => cutting(['from', `${address}/32`], ['to', `${address}/32`]),
    async heal() {
      for (const selector of [...inForce]) await removeRule(selector);
    },
    stop() {
      removeAll();
      liveLabs.delete(removeAll);
      return Promise.resolve();
    },
  };
}

/** A second octet no address or route of this machine uses yet. */
async function freeOctet(): Promise<number> {
  const { stdout } = await run('ip', ['-4', 'route', 'show', 'table', 'all']);
  const { stdout: addresses } = await run('ip', ['-4', '-o', 'addr']);
  for (let tries = 0; tries < 50; tries++) {
    const octet = randomInt(100, 250);
    if (!`${stdout}\n${addresses}`.includes(`10.${octet}.`)) return octet;
  }
  throw new Error('no free 10.x.0.0/16 for the network lab');
}

async function removeOrphans(): Promise<void> {
  const { stdout } = await run('ip', ['netns', 'list']);
  for (const line of stdout.split('\n')) {
    const ns = line.split(' ')[0] ?? '';
    const pid = /^dzlab-(\d+)-/.exec(ns)?.[1];
    if (pid && !alive(Number(pid))) await run('ip', ['netns', 'del', ns]).catch(() => undefined);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const remove of liveLabs) remove();
  });
}
