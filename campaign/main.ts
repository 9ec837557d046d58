// `pnpm campaign`: a seeded fault campaign against dzpay (docs/reliability.md).
//   pnpm campaign [--seed N] [--minutes M | --seconds S] [--payers P] [--no-faults] [--cluster]
//                 [--focus refunds|cancels|agency|checkout|status] [--out DIR]
//                 [--only-faults kind,kind] (e.g. failover-postgres,isolate-service)
// Exits 1 when an invariant was violated, 2 on bad arguments.
import { randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';
import { FAULT_KINDS } from './faults.ts';
import { report, violationsOf } from './report.ts';
import { runCampaign, stopCampaign } from './run.ts';
import { FOCUSES, type Focus } from './settings.ts';

// Ctrl-C or a supervisor's SIGTERM: stop the services and servers and drop the database,
// within 30 s; exit handlers kill whatever is still running after that.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    setTimeout(() => process.exit(130), 30_000).unref();
    void stopCampaign().finally(() => process.exit(130));
  });
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      seed: { type: 'string' },
      minutes: { type: 'string' },
      seconds: { type: 'string' },
      payers: { type: 'string', default: '8' },
      'no-faults': { type: 'boolean', default: false },
      cluster: { type: 'boolean', default: false },
      focus: { type: 'string' },
      out: { type: 'string', default: '.campaign' },
      'only-faults': { type: 'string' },
    },
  }));
} catch (error) {
  console.error(String(error));
  process.exit(2);
}
const number = (name: string, text: string | undefined, fallback: number): number => {
  const value = text === undefined ? fallback : Number(text);
  if (!Number.isFinite(value) || value < 0) {
    console.error(`--${name} must be a non-negative number`);
    process.exit(2);
  }
  return value;
};
const focus = values.focus ?? null;
if (focus !== null && !(FOCUSES as readonly string[]).includes(focus)) {
  console.error(`--focus must be one of ${FOCUSES.join(', ')}`);
  process.exit(2);
}
const onlyFaults = values['only-faults']?.split(',').filter(Boolean) ?? null;
const unknownKind = onlyFaults?.find((kind) => !(FAULT_KINDS as readonly string[]).includes(kind));
if (unknownKind !== undefined) {
  console.error(`--only-faults: ${unknownKind} is not one of ${FAULT_KINDS.join(', ')}`);
  process.exit(2);
}
const seed = Math.trunc(number('seed', values.seed, randomInt(1, 2 ** 31 - 1)));
const runMs = values.seconds
  ? number('seconds', values.seconds, 60) * 1000
  : number('minutes', values.minutes, 1) * 60_000;

const result = await runCampaign(
  {
    seed,
    runMs,
    payers: Math.max(1, Math.trunc(number('payers', values.payers, 8))),
    faults: !values['no-faults'],
    outDir: values.out,
    cluster: values.cluster,
    focus: focus as Focus | null,
    onlyFaults,
  },
  (line) => console.log(`[campaign] ${line}`),
);
console.log(`\n${report(result)}`);
process.exit(violationsOf(result) > 0 ? 1 : 0);
