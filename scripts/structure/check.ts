// `pnpm run structure`: the workspace's shape, checked. dependency-cruiser holds the
// imports to the rules of .dependency-cruiser.js (no library imports a service or a
// tool, no service imports another, no cycle of value imports), then no package may
// hold more than its share of the source lines (package-sizes.ts). Both always run, so
// one report shows every problem; exits 1 when either fails.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatSizes, measureSizes } from './package-sizes.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
// A folder that does not exist (yet) has nothing to check; depcruise would stop on it.
const cruised = ['services', 'libs', 'tools'].filter((folder) => existsSync(join(root, folder)));

const cruise = spawnSync(
  process.execPath,
  [
    join(root, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs'),
    '--config',
    '.dependency-cruiser.js',
    ...cruised,
  ],
  { cwd: root, stdio: 'inherit' },
);
const importsHold = cruise.status === 0;

const sizes = measureSizes(root);
console.log(`\n${formatSizes(sizes)}`);
const sizesHold = sizes.oversized.length === 0;
if (!sizesHold) {
  console.log(`\nover the share: ${sizes.oversized.map((folder) => folder.folder).join(', ')}`);
}

process.exitCode = importsHold && sizesHold ? 0 : 1;
