import { readFileSync } from 'node:fs';

// CPU time per process from /proc/<pid>/stat (Linux): user + system, in clock ticks of
// 1/100 s (USER_HZ, 100 on every Linux Node runs on here).
const TICKS_PER_SECOND = 100;

function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: count fields after its closing paren.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** CPU microseconds per request, per named process, over one measured run. */
export type CpuPerRequest = Record<string, number>;

/**
 * Reads the processes' CPU time now; the returned function reads it again and divides
 * what each used in between by `requests`.
 */
export function startCpuProbe(pids: Record<string, number>): (requests: number) => CpuPerRequest {
  const before = Object.fromEntries(
    Object.entries(pids).map(([name, pid]) => [name, cpuSecondsOf(pid)]),
  );
  return (requests) =>
    Object.fromEntries(
      Object.entries(pids).map(([name, pid]) => [
        name,
        Math.round(((cpuSecondsOf(pid) - before[name]!) * 1e6) / Math.max(1, requests)),
      ]),
    );
}
