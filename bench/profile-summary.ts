import { readFileSync } from 'node:fs';

// `node bench/profile-summary.ts <file.cpuprofile> [top]`: where one process spent its
// CPU during a bench run (BENCH_CPU_PROF=<dir> pnpm bench writes the profiles): self
// time by function and by package, idle and garbage collection apart.

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/profile-summary.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => {
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});

/** node_modules/.pnpm/<pkg>@<v>/… → <pkg>; our own files by folder; node: internals. */
function packageOf(url: string): string {
  const dep = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dep) return dep[1]!;
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const own = /\/(services\/[^/]+|libs\/[^/]+)\//.exec(url);
  if (own) return own[1]!;
  return url === '' ? '(native)' : url;
}

const functions = new Map<string, number>();
const packages = new Map<string, number>();
let total = 0;
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  total += us;
  const name = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
  functions.set(name, (functions.get(name) ?? 0) + us);
  const pkg = ['(idle)', '(program)', '(garbage collector)'].includes(functionName)
    ? functionName
    : packageOf(url);
  packages.set(pkg, (packages.get(pkg) ?? 0) + us);
}
const table = (entries: Map<string, number>) =>
  [...entries]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => ({
      name,
      ms: Math.round(us / 1000),
      share: `${((us / total) * 100).toFixed(1)}%`,
    }));
console.log(`${file}: ${Math.round(total / 1000)} ms sampled`);
console.table(table(packages));
console.table(table(functions));
