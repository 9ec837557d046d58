import { expect } from 'vitest';
import { parse } from 'yaml';
import { readText } from './repository.ts';

// docker-compose.yml read as a file (no Docker engine runs it here).

export interface ComposeService {
  image?: string;
  build?: { context?: string; dockerfile?: string; args?: Record<string, string> };
  command?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  healthcheck?: { test?: string | string[]; disable?: boolean };
  depends_on?: Record<string, { condition?: string }> | string[];
  ports?: (string | number | { target?: number; published?: string | number })[];
  volumes?: (string | { target?: string })[];
  configs?: (string | { source: string; target?: string })[];
  stop_grace_period?: string;
}

export const composeText = readText('docker-compose.yml');
export const compose = parse(composeText) as {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  configs?: Record<string, { content?: string; file?: string }>;
};

export function service(name: string): ComposeService {
  const found = compose.services[name];
  if (!found) throw new Error(`compose has no service ${name}`);
  return found;
}

export function environment(name: string): Record<string, string> {
  const env = service(name).environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
    );
  }
  return Object.fromEntries(Object.entries(env).map(([key, value]) => [key, String(value)]));
}

export function command(name: string): string[] {
  const cmd = service(name).command ?? [];
  return Array.isArray(cmd) ? cmd : cmd.split(/\s+/);
}

export function healthcheck(name: string): string {
  const test = service(name).healthcheck?.test ?? [];
  return Array.isArray(test) ? test.join(' ') : test;
}

export function dependency(name: string, on: string): string | undefined {
  const dependsOn = service(name).depends_on;
  expect(Array.isArray(dependsOn), `${name}: depends_on with conditions`).toBe(false);
  return (dependsOn as Record<string, { condition?: string }> | undefined)?.[on]?.condition;
}

/** The host port that publishes a container port, if any. */
export function publishedPort(name: string, target: number): number | undefined {
  for (const port of service(name).ports ?? []) {
    if (typeof port === 'object') {
      if (port.target === target) return Number(port.published ?? target);
      continue;
    }
    const parts = String(port).split(':');
    if (Number(parts.at(-1)) === target) return Number(parts.at(-2) ?? target);
  }
  return undefined;
}

/** The comment lines right above each line of docker-compose.yml that `pattern` matches. */
export function commentsAbove(pattern: RegExp): string[] {
  const lines = composeText.split('\n');
  return lines.flatMap((line, at) => {
    if (!pattern.test(line)) return [];
    const comment: string[] = [];
    for (let i = at - 1; i >= 0 && /^\s*#/.test(lines[i]!); i--) comment.unshift(lines[i]!);
    return [comment.join(' ')];
  });
}

/** Milliseconds of a compose duration such as 30s, 1m30s or 500ms. */
export function durationMs(text: string): number {
  const parts = [...text.matchAll(/(\d+)(ms|s|m|h)/g)];
  expect(parts.map((p) => p[0]).join(''), `duration ${text}`).toBe(text);
  const unit: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
  return parts.reduce((sum, [, n, u]) => sum + Number(n) * unit[u!]!, 0);
}
