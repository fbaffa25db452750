/**
 * What a benchmark reads about a process it started, from Linux's `/proc`: resident memory now and at
 * its peak (`VmHWM`, kept by the kernel, so no sampling can miss a spike) and CPU time used so far.
 */
import { readFile } from 'node:fs/promises';

/** One reading of a process. */
export interface ProcessStats {
  rssBytes: number;
  peakRssBytes: number;
  /** User plus system CPU time since the process started. */
  cpuMs: number;
}

/** `/proc/<pid>/stat` counts CPU time in clock ticks of 1/100 s (`getconf CLK_TCK` on Linux). */
const MS_PER_TICK = 10;

function kibField(status: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (!match) throw new Error(`/proc status has no ${field}`);
  return Number(match[1]) * 1024;
}

/** Reads the stats of `pid`; throws when it is not running. */
export async function processStats(pid: number): Promise<ProcessStats> {
  const [status, stat] = await Promise.all([readFile(`/proc/${pid}/status`, 'utf8'), readFile(`/proc/${pid}/stat`, 'utf8')]);
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis are plain.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime and stime, fields 14 and 15 of stat(5).
  return { rssBytes: kibField(status, 'VmRSS'), peakRssBytes: kibField(status, 'VmHWM'), cpuMs: ticks * MS_PER_TICK };
}

/** The PIDs of the processes `pid` started (the JSONata evaluators of a loom). */
export async function childPids(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  return text.split(' ').filter(Boolean).map(Number);
}

/** Bytes as MiB with one decimal. */
export function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
