import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Verdict } from './invariants.ts';

/** One stage of a run, as `stages.jsonl` keeps it. */
export interface Stage {
  name: string;
  at: string;
}

/**
 * What a run has done so far, written as it goes (`<logDir>/stages.jsonl`, a line per
 * stage and per verdict), so that a run ended by its deadline, a fault it could not undo
 * or an error still says how far it came and what it checked.
 */
export function runJournal(logDir: string, log: (line: string) => void) {
  const stages: Stage[] = [];
  const verdicts: Verdict[] = [];
  const write = (entry: object) =>
    appendFileSync(join(logDir, 'stages.jsonl'), `${JSON.stringify(entry)}\n`);
  return {
    stages,
    verdicts,
    /** Where the run is now. */
    get current(): string {
      return stages.at(-1)?.name ?? 'starting';
    },
    stage(name: string, details: Record<string, unknown> = {}): void {
      const stage = { name, at: new Date().toISOString() };
      stages.push(stage);
      write({ ...stage, ...details });
      log(`stage: ${name}`);
    },
    /** Verdicts as each check gives them. */
    add(...checked: Verdict[]): void {
      for (const verdict of checked) {
        verdicts.push(verdict);
        write({ verdict: verdict.name, checked: verdict.checked, violations: verdict.violations });
      }
    },
  };
}

export type RunJournal = ReturnType<typeof runJournal>;

/**
 * The run's outcome, or that it did not end within `ms` (it goes on unheard: the caller
 * stops what it runs on), or the error it ended with. Never a wait past `ms`.
 */
export async function withinDeadline<T>(
  run: Promise<T>,
  ms: number,
): Promise<{ value: T } | { deadline: true } | { error: Error }> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<{ deadline: true }>((resolve) => {
    timer = setTimeout(() => resolve({ deadline: true }), ms);
  });
  try {
    return await Promise.race([
      run.then(
        (value) => ({ value }),
        (error: unknown) => ({ error: error instanceof Error ? error : new Error(String(error)) }),
      ),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
