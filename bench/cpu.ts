import { readdirSync, readFileSync } from 'node:fs';

// CPU time per process from /proc/<pid>/stat (Linux): user + system, in clock ticks of
// 1/100 s (USER_HZ, 100 on every Linux Node runs on here).
const TICKS_PER_SECOND = 100;

/** The fields after the command name, which may hold spaces: split after its ')'. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // exited in between
  }
}

function cpuSecondsOf(pid: number): number {
  const fields = statFields(pid);
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
  return fields ? (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND : 0;
}

/** Every process whose command name is `comm` (e.g. all of Postgres's backends). */
export function pidsNamed(comm: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === comm) pids.push(Number(entry));
    } catch {
      // exited while listed
    }
  }
  return pids;
}

/** CPU microseconds per request, per named process, over one measured run. */
export type CpuPerRequest = Record<string, number>;

/**
 * What the probe reads: one process by pid, or a group read again at the end (Postgres
 * starts a backend per connection, so its processes are found by name each time).
 */
export type ProcessRef = number | (() => number[]);

/**
 * Reads the processes' CPU time now; the returned function reads it again and divides
 * what each used in between by `requests`. A group's process that started during the
 * run counts whole; one that exited during it is lost (its time is not in /proc).
 */
export function startCpuProbe(
  processes: Record<string, ProcessRef>,
): (requests: number) => CpuPerRequest {
  const pidsOf = (ref: ProcessRef) => (typeof ref === 'number' ? [ref] : ref());
  const before = new Map<number, number>();
  for (const ref of Object.values(processes)) {
    for (const pid of pidsOf(ref)) before.set(pid, cpuSecondsOf(pid));
  }
  return (requests) =>
    Object.fromEntries(
      Object.entries(processes).map(([name, ref]) => {
        const used = pidsOf(ref).reduce(
          (sum, pid) => sum + cpuSecondsOf(pid) - (before.get(pid) ?? 0),
          0,
        );
        return [name, Math.round((used * 1e6) / Math.max(1, requests))];
      }),
    );
}

/** The processes' CPU per request and their sum (the bench's own share left out of it). */
export function withTotal(cpu: CpuPerRequest): CpuPerRequest {
  const total = Object.entries(cpu)
    .filter(([name]) => name !== 'bench')
    .reduce((sum, [, us]) => sum + us, 0);
  return { ...cpu, total };
}
