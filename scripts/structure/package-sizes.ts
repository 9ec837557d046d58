// How the project's source lines are shared among its workspace packages: one package
// holding more than a fifth of them is doing several packages' work, and each of those
// deserves its own room. Run alone (`node scripts/structure/package-sizes.ts`) or through
// `pnpm run structure`; exits 1 when a package is over the share.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Most of the project's source lines one package may hold. */
const LARGEST_SHARE = 0.2;

/** Where the workspace packages live (pnpm-workspace.yaml): each folder with a package.json. */
const PACKAGE_PARENTS = ['services', 'libs', 'tools'];
/** The harnesses of the whole system: counted in the total, never packages themselves. */
const HARNESS_FOLDERS = ['bench', 'campaign', 'system', 'scripts'];
const SOURCE_EXTENSIONS = ['.ts', '.sql', '.js'];

interface FolderSize {
  /** The folder, relative to the project's root. */
  folder: string;
  /** Non-blank lines of its non-test sources. */
  lines: number;
  /** Whether it is a workspace package (held to LARGEST_SHARE) or a harness. */
  kind: 'package' | 'harness';
}

export interface SizeReport {
  folders: FolderSize[];
  total: number;
  /** The packages over LARGEST_SHARE of the total. */
  oversized: FolderSize[];
}

export function measureSizes(root: string): SizeReport {
  const packages = PACKAGE_PARENTS.flatMap((parent) => packageFoldersIn(join(root, parent)));
  const harnesses = HARNESS_FOLDERS.map((name) => join(root, name)).filter(isDirectory);
  const folders: FolderSize[] = [
    ...packages.map((path) => sizeOf(root, path, 'package')),
    ...harnesses.map((path) => sizeOf(root, path, 'harness')),
  ];
  const total = folders.reduce((sum, folder) => sum + folder.lines, 0);
  const oversized = folders.filter(
    (folder) => folder.kind === 'package' && folder.lines > total * LARGEST_SHARE,
  );
  return { folders, total, oversized };
}

export function formatSizes(report: SizeReport): string {
  const rows = [...report.folders].sort((a, b) => b.lines - a.lines);
  const width = Math.max(...rows.map((row) => row.folder.length), 'total'.length);
  const line = (name: string, lines: number, note: string) =>
    `${name.padEnd(width)}  ${String(lines).padStart(6)}  ${percent(lines, report.total).padStart(6)}${note}`;
  const over = new Set(report.oversized);
  return [
    `Source lines (non-blank, tests excluded); no package over ${LARGEST_SHARE * 100}% of the total`,
    ...rows.map((row) =>
      line(
        row.folder,
        row.lines,
        row.kind === 'harness' ? '  (harness)' : over.has(row) ? '  OVER THE SHARE' : '',
      ),
    ),
    line('total', report.total, ''),
  ].join('\n');
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '0.0%' : `${((part / whole) * 100).toFixed(1)}%`;
}

function packageFoldersIn(parent: string): string[] {
  if (!isDirectory(parent)) return [];
  return readdirSync(parent)
    .sort()
    .map((name) => join(parent, name))
    .filter((path) => existsSync(join(path, 'package.json')));
}

function sizeOf(root: string, folder: string, kind: FolderSize['kind']): FolderSize {
  const lines = sourceFilesUnder(folder).reduce((sum, file) => sum + nonBlankLines(file), 0);
  return { folder: relative(root, folder), lines, kind };
}

function sourceFilesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      return entry.name === 'node_modules' || entry.name === 'test' ? [] : sourceFilesUnder(path);
    }
    return isSource(entry.name) ? [path] : [];
  });
}

function isSource(name: string): boolean {
  return SOURCE_EXTENSIONS.some((extension) => name.endsWith(extension)) && !isTest(name);
}

function isTest(name: string): boolean {
  return /\.test\.[jt]s$/.test(name);
}

function nonBlankLines(file: string): number {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '').length;
}

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

if (import.meta.main) {
  const report = measureSizes(fileURLToPath(new URL('../..', import.meta.url)));
  console.log(formatSizes(report));
  process.exitCode = report.oversized.length > 0 ? 1 : 0;
}
