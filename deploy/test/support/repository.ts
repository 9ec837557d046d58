import { existsSync, readdirSync, readFileSync } from 'node:fs';

// The repository as these tests read it: paths are relative to its root.

export const root = new URL('../../../', import.meta.url);

export function fileUrl(path: string): URL {
  return new URL(path, root);
}

export function readText(path: string): string {
  return readFileSync(fileUrl(path), 'utf8');
}

export function exists(path: string): boolean {
  return existsSync(fileUrl(path));
}

/** The text of every file under deploy/ but its tests, by path relative to the repository. */
export function deployFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(fileUrl(dir), { withFileTypes: true })) {
      const path = `${dir}${entry.name}`;
      if (path === 'deploy/test') continue;
      if (entry.isDirectory()) walk(`${path}/`);
      else files.set(path, readText(path));
    }
  };
  walk('deploy/');
  return files;
}

/** deploy/README.md, where every setting and secret a manifest uses is documented. */
export const deployReadme = (): string => readText('deploy/README.md');
