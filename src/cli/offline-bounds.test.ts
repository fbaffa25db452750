/**
 * `loom render` and `loom validate` on expressions that would take down a host evaluating them in
 * its own process (`hostile-expressions.test-support.ts`), run as the `loom` command: render ends
 * each with a clear error naming the hook and the bound, exit 1, and no native crash report; validate
 * compiles the expressions without evaluating them, so both are valid. How long each render took is
 * printed for the record, never asserted.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { childPids, isRunning } from '../../test/support/loom-process.ts';
import { systemClock } from '../engine/clock.ts';
import { HOSTILE_EXPRESSIONS, hostileController, NATIVE_CRASH } from './hostile-expressions.test-support.ts';
import { loomCommands } from './loom-command.test-support.ts';

const commands = loomCommands();
const PARENT = { apiVersion: 'example.com/v1', kind: 'Web', metadata: { name: 'shop', namespace: 'default', uid: 'u-1' }, spec: {} };
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loom-offline-bounds-'));
  await writeFile(join(dir, 'parent.yaml'), JSON.stringify(PARENT));
  for (const [name, hostile] of Object.entries(HOSTILE_EXPRESSIONS)) {
    await writeFile(join(dir, `${name}.yaml`), hostileController(name, { apiVersion: 'example.com/v1', resource: 'webs' }, hostile));
  }
});

afterEach(() => commands.stopAll());

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.each(Object.entries(HOSTILE_EXPRESSIONS))('the %s expression', (name, { failure }) => {
  it('ends loom render with an error naming the hook and the bound, not a crash', async () => {
    const run = await commands.run(['render', '--controller', `${name}.yaml`, '--parent', 'parent.yaml'], dir);
    // A figure to report, never asserted: how long a user waits for the verdict.
    console.info(`loom render, ${name} expression: exit ${run.code ?? run.signal} after ${Math.round(run.elapsedMs)} ms`);
    expect(run.stderr).not.toMatch(NATIVE_CRASH);
    expect(run.stderr).toMatch(failure);
    expect({ code: run.code, signal: run.signal, stdout: run.stdout }).toEqual({ code: 1, signal: null, stdout: '' });
  });

  it('is valid to loom validate, which compiles it and runs none of it', async () => {
    const run = await commands.run(['validate', `${name}.yaml`], dir);
    expect({ code: run.code, signal: run.signal, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: 0, signal: null, stdout: '', stderr: '' });
  });
});

/** Polls `probe` until it returns a value; a guard against a hang, far above the time any state here takes. */
async function waitFor<T>(probe: () => T | undefined, what: string): Promise<T> {
  const deadline = systemClock.now() + 30_000;
  for (let value = probe(); ; value = probe()) {
    if (value !== undefined) return value;
    if (systemClock.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await systemClock.sleep(20);
  }
}

describe('loom render stopped with Ctrl-C (SIGINT) while its hook runs', () => {
  it('leaves no evaluator process behind', async () => {
    const render = await commands.start(['render', '--controller', 'backtracking.yaml', '--parent', 'parent.yaml'], dir);
    // Only the command gets the signal, as from `kill -INT`: a terminal's Ctrl-C would reach the evaluators too.
    const evaluators = await waitFor(() => {
      const pids = childPids(render.pid);
      return pids.length > 0 ? pids : undefined;
    }, 'an evaluator process');
    process.kill(render.pid, 'SIGINT');
    const run = await render.done;
    expect(run.signal ?? run.code).not.toBe(0);
    await waitFor(() => (evaluators.some(isRunning) ? undefined : true), `evaluators ${evaluators.join(', ')} to exit`);
  });
});
