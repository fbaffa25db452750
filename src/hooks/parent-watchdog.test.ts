/**
 * An evaluator whose loom is killed exits, even while an evaluation holds its event loop (issue: an
 * evaluator orphaned by a SIGKILL of loom ran on for hours with a backtracking regex, since it heard
 * of its parent's end only when the event loop was free). Real processes, started and stopped by id.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { afterEach, expect, it } from 'vitest';
import { systemClock } from '../engine/clock.ts';

const HOST = new URL('./orphan-host.test-support.ts', import.meta.url);
const CLOCK_TICKS_PER_SECOND = 100;
const toKill: number[] = [];
afterEach(() => {
  for (const pid of toKill.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone: what the test wanted.
    }
  }
});

/** `/proc/<pid>/stat`: the state letter and the CPU seconds used, or `undefined` once the process is gone. */
function stat(pid: number): { state: string; cpuSeconds: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // After "pid (comm) ": state is field 3, utime and stime fields 14 and 15.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0]!, cpuSeconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND };
}

async function until(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = systemClock.now() + timeoutMs;
  while (!condition()) {
    if (systemClock.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await systemClock.sleep(100);
  }
}

it('ends an evaluator whose host was killed while a backtracking regex held it', async () => {
  const host = spawn(process.execPath, [HOST.pathname], { stdio: ['ignore', 'pipe', 'inherit'] });
  toKill.push(host.pid!);
  const [line] = (await once(createInterface({ input: host.stdout }), 'line')) as [string];
  const evaluator = Number(line);
  toKill.push(evaluator);
  // Busy in the regex: it has computed for seconds (starting takes a fraction of that).
  await until(() => (stat(evaluator)?.cpuSeconds ?? 0) >= 2, 'the evaluator to be deep in the regex');

  process.kill(host.pid!, 'SIGKILL');
  await once(host, 'exit');
  // Gone, or a zombie waiting for its new parent to reap it: either way it runs no more.
  await until(() => [undefined, 'Z', 'X'].includes(stat(evaluator)?.state), 'the orphaned evaluator to exit');
  expect(stat(evaluator)?.state ?? 'gone').not.toBe('R');
}, 120_000);
