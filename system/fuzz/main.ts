import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { FuzzResult } from './run.ts';

// `pnpm fuzz --requests 20000 [--seed N] [--path P] [--keep-going]`: the long fuzz run.
// It runs system/fuzz.system.test.ts through vitest (whose global setup finds Postgres,
// Redis and NATS, as for every service test) with the run's settings in the
// environment, then prints the summary table docs/fuzzing.md shows.

const usage =
  'usage: pnpm fuzz [--requests N] [--seed N] [--path P] [--timeout-ms N] [--keep-going]';
const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    seed: { type: 'string' },
    path: { type: 'string' },
    'timeout-ms': { type: 'string', default: '10000' },
    'keep-going': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
const out = (line: string) => process.stdout.write(`${line}\n`);
if (values.help) {
  out(usage);
  process.exit(0);
}
const positive = (name: string, text: string | undefined) => {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) {
    process.stderr.write(`--${name} must be a whole number\n${usage}\n`);
    process.exit(2);
  }
  return value;
};
const requests = positive('requests', values.requests);
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : positive('seed', values.seed);
const timeoutMs = positive('timeout-ms', values['timeout-ms']);
const report = join(tmpdir(), `dzpay-fuzz-${process.pid}.json`);

const root = fileURLToPath(new URL('../..', import.meta.url));
out(`fuzzing ${requests} requests, seed ${seed}${values.path ? `, path ${values.path}` : ''}`);
const started = Date.now();
const code = await new Promise<number>((resolve) => {
  const child = spawn(
    'npx',
    ['vitest', 'run', '--project', 'service', 'system/fuzz.system.test.ts'],
    {
      cwd: root,
      stdio: 'inherit',
      env: {
        ...process.env,
        FUZZ_REQUESTS: String(requests),
        FUZZ_SEED: String(seed),
        FUZZ_TIMEOUT_MS: String(timeoutMs),
        FUZZ_REPORT: report,
        ...(values.path ? { FUZZ_PATH: values.path } : {}),
        ...(values['keep-going'] ? { FUZZ_KEEP_GOING: '1' } : {}),
      },
    },
  );
  child.on('exit', (exitCode) => resolve(exitCode ?? 1));
});

let result: FuzzResult | null = null;
try {
  result = JSON.parse(await readFile(report, 'utf8')) as FuzzResult;
  await rm(report, { force: true });
} catch {
  out('the run ended before writing its summary (see the output above)');
  process.exit(code || 1);
}
const { stats } = result;
const row = (name: string, value: string | number) => out(`| ${name} | ${value} |`);
out('');
out('| | |');
out('| --- | --- |');
row('seed', result.seed);
row('requests sent', stats.sent);
row('requests with the valid test key', stats.withValidKey);
row(
  'distinct routes answered (of registered)',
  `${stats.routesAnswered.length} of ${stats.routesAnswered.length + stats.routesMissed.length}`,
);
for (const statusClass of ['2xx', '3xx', '4xx', '5xx', 'hang', 'no-answer']) {
  row(`answers ${statusClass}`, stats.byClass[statusClass] ?? 0);
}
row(
  'answers ≥ 500',
  `${stats.atLeast500} (explained by reported bugs: ${stats.atLeast500Pending})`,
);
row('hangs', stats.hangs);
row('property failures', stats.failed);
for (const [id, count] of Object.entries(stats.pendingFixes))
  row(`reported, not fixed: ${id}`, count);
row('slowest answer', `${stats.slowest[0]?.ms ?? 0} ms`);
row('duration', `${Math.round((Date.now() - started) / 1000)} s`);
if (stats.routesMissed.length > 0) out(`\nroutes never answered: ${stats.routesMissed.join(', ')}`);
if (result.failure)
  out(`\n${result.failure}\nreplay: pnpm fuzz --requests ${requests} --seed ${result.seed}`);
for (const failure of stats.failures.slice(0, 10)) {
  out(
    `\n${failure.problems.join('; ')}\n  ${JSON.stringify(failure.request).slice(0, 400)}\n  ${failure.answer}`,
  );
}
process.exit(code);
