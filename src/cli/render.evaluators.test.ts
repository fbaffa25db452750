/**
 * `loom render` evaluates JSONata hooks in evaluator processes of its own, as `loom run` does, and
 * kills every one it started (by PID) before it returns: with a rendered report, after a failed hook,
 * and after a runaway its evaluator's watchdog stopped.
 */
import { describe, expect, it } from 'vitest';
import { systemClock } from '../engine/clock.ts';
import { startEvaluatorProcess } from '../hooks/evaluator-process.ts';
import { isRunning } from '../../test/support/loom-process.ts';
import { caseDir, runWith, type RunOptions } from './render.test-support.ts';

const jsonata = ['--controller', 'controller.yaml', '--parent', 'parent.yaml', '--related', 'related.yaml'];
const SYNC = '$name := parent.metadata.name;';

/** A guard against a hang, far above the few milliseconds a killed process takes to go. */
const GONE_WITHIN_MS = 30_000;

/** Resolves once none of `pids` is running; rejects with those still running after {@link GONE_WITHIN_MS}. */
async function allGone(pids: readonly number[]): Promise<void> {
  const deadline = systemClock.now() + GONE_WITHIN_MS;
  while (pids.some(isRunning)) {
    if (systemClock.now() > deadline) throw new Error(`evaluator processes still running: ${pids.filter(isRunning).join(', ')}`);
    await systemClock.sleep(20);
  }
}

/** Renders the jsonata fixture with the sync expression's first line replaced by `line`, recording each evaluator's PID. */
async function renderRecording(line: string): Promise<{ code: number; stderr: string; pids: number[] }> {
  const pids: number[] = [];
  const startEvaluator: RunOptions['startEvaluator'] = (entry, heapMiB, events) => {
    const started = startEvaluatorProcess(entry, heapMiB, events);
    if (started.pid !== undefined) pids.push(started.pid);
    return started;
  };
  const edit = { 'controller.yaml': (text: string) => text.replace(SYNC, line) };
  const run = await runWith(jsonata, { dir: caseDir('jsonata'), edit, startEvaluator });
  return { code: run.code, stderr: run.stderr, pids };
}

describe('loom render evaluators', () => {
  it.each([
    ['a rendered report', SYNC, 0, ''],
    ['a failed hook', '$name := $error("no name for you");', 1, 'sync hook: JSONata error at line 2, column 12: no name for you\n'],
    ['a runaway stopped at its deadline', '$name := $match($pad("", 30, "a") & "!", /(a+)+(?=b)/) ~> $string();', 1, 'sync hook: JSONata evaluation timed out after 1000 ms; its evaluator process was stopped\n'],
  ])('leaves no evaluator process running after %s', async (_name, line, code, stderr) => {
    const run = await renderRecording(line);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code, stderr });
    expect(run.pids.length).toBeGreaterThan(0);
    await allGone(run.pids);
  });
});
