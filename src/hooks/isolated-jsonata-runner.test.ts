/**
 * The isolated JSONata runner against real evaluator processes: the expressions that end or stall a
 * process when evaluated in it (issue: one expression could crash or hold the whole host) fail only
 * their own call here, with a reason, and the runner goes on answering.
 *
 * No outcome here depends on how fast the machine is. The pools run on a hand-driven clock, so their
 * watchdog kills a call at its deadline only when a test moves time on ({@link runOut}); and every
 * call gets a budget no evaluation here comes near ({@link UNBOUNDED_MS}), unless its test is about
 * that budget. So each test controls exactly one bound: a crash, the heap limit or the size check is
 * never beaten by a deadline on a loaded machine, where a process takes seconds to start.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../engine/clock.ts';
import { manualClock } from '../engine/manual-clock.test-support.ts';
import { createEvaluatorPool, type EvaluatorPoolOptions } from './evaluator-pool.ts';
import { HookError } from './hook-error.ts';
import type { HookRequestOutcome } from './hook-observer.ts';
import { compileIsolatedJsonataHook } from './isolated-jsonata-runner.ts';
import { JsonataCompileError, JsonataEvaluationError } from './jsonata-errors.ts';
import type { JsonataHookOptions } from './jsonata-runner.ts';

const ENTRY = new URL('../jsonata-evaluator.ts', import.meta.url);
const GRACE_MS = 100;
/** An evaluator's own step budget (on its real clock) that no call here spends, however busy the machine. */
const UNBOUNDED_MS = 3_600_000;
/** The pools' time: it moves only when a test says so. */
const time = manualClock();
const pools: { close(): void }[] = [];
afterAll(() => {
  for (const pool of pools) pool.close();
});

function poolOf(options: Partial<EvaluatorPoolOptions> = {}) {
  const pool = createEvaluatorPool({ entry: ENTRY, processes: 2, heapMiB: 128, graceMs: GRACE_MS, clock: time, ...options });
  pools.push(pool);
  return pool;
}

const shared = poolOf();
const never = new AbortController().signal;
const request = { parent: { metadata: { name: 'web' }, spec: { replicas: 2 } } };

function hook(expression: string, options: Partial<JsonataHookOptions> = {}, pool = shared) {
  return compileIsolatedJsonataHook({ expression, hook: 'sync', timeoutMs: UNBOUNDED_MS, clock: time, ...options }, pool);
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error: unknown = await promise.then((value) => ({ resolved: value }), (err: unknown) => err);
  expect(error).toBeInstanceOf(HookError);
  return error as Error;
}

/**
 * Moves the pools' time past `timeoutMs` and the grace after it, again and again, until `outcome`
 * settles: a call's deadline counts from when it is sent to a process, which is once a process has
 * started, so the test waits for that state (a short real pause between steps) rather than for a time.
 */
async function runOut<T>(outcome: Promise<T>, timeoutMs: number): Promise<T> {
  let settled = false;
  void outcome.then(() => (settled = true), () => (settled = true));
  while (!settled) {
    await time.advance(timeoutMs + 2 * GRACE_MS);
    await systemClock.sleep(10);
  }
  return outcome;
}

/** Each of these, evaluated in loom's own process, ended it or held it far past its budget. */
const HOSTILE = {
  /** V8: "Fatal JavaScript invalid size error" — an abort no JavaScript can catch. */
  fatalSize: '{"n": $count($split($pad("a", 150000000), ""))}',
  /** Half a gigabyte of string: past the heap limit. */
  hugeString: '{"n": $length($pad("x", 500000000))}',
  /** Catastrophic backtracking with a backreference (no linear engine): one native call for minutes. */
  backtracking: '{"r": $contains($pad("", 30, "a") & "!", /^(a+)+\\1?$/)}',
};

describe('isolated JSONata runner: what in-process evaluation gives', () => {
  it('answers with the result as plain JSON', async () => {
    await expect(hook('{"children": [], "status": {"replicas": parent.spec.replicas, "name": parent.metadata.name}}').call(request, never))
      .resolves.toEqual({ children: [], status: { replicas: 2, name: 'web' } });
  });

  it('throws the compile error when compiled, with line and column', () => {
    expect(() => hook('{\n  "a": (1 +\n}')).toThrow(JsonataCompileError);
  });

  it('rebuilds an evaluation error with JSONata’s code, its position, line and column', async () => {
    const error = await failure(hook('{\n  "x": $error("boom")\n}').call(request, never));
    expect(error).toBeInstanceOf(JsonataEvaluationError);
    expect(error.message).toBe('sync hook: JSONata error at line 2, column 8: boom');
    expect(error).toMatchObject({ code: 'D3137', position: 16, line: 2, column: 8 });
  });

  it('stops an ordinary runaway with the evaluator’s own step budget, keeping the process', async () => {
    const error = await failure(hook('($f := function($n) { $f($n + 1) }; $f(0))', { timeoutMs: 200 }).call(request, never));
    expect(error.message).toBe('sync hook: JSONata evaluation timed out after 200 ms');
  });

  it('refuses a result larger than loom accepts from a webhook', async () => {
    // A heap with room for the result and its JSON, so the size check ends the call, not the heap
    // limit (with 128 MiB either may come first, depending on when V8 collects).
    const roomy = poolOf({ heapMiB: 512, processes: 1 });
    const error = await failure(hook('{"big": $pad("", 17000000, "x")}', {}, roomy).call(request, never));
    expect(error.message).toMatch(/^sync hook: the JSONata result is \d+ characters of JSON, more than the 16777216 allowed$/);
  });
});

describe('isolated JSONata runner: expressions that would end or hold loom', () => {
  it('fails a V8 fatal error as one call, and the runner answers the next call', async () => {
    const runner = hook(HOSTILE.fatalSize);
    const error = await failure(runner.call(request, never));
    expect(error.message).toBe('sync hook: JSONata evaluation built a value larger than JavaScript allows');
    await expect(hook('{"still": "here"}').call(request, never)).resolves.toEqual({ still: 'here' });
  });

  it('fails an expression that outgrows the heap limit, naming the limit', async () => {
    const error = await failure(hook(HOSTILE.hugeString).call(request, never));
    expect(error.message).toBe('sync hook: JSONata evaluation exceeded the memory limit of 128 MiB');
  }, 60_000);

  it('kills a native call that runs past the budget, and other expressions answer meanwhile', async () => {
    let runawaySettled = false;
    const runaway = failure(hook(HOSTILE.backtracking, { timeoutMs: 5_000 }).call(request, never)).finally(() => (runawaySettled = true));
    await expect(hook('{"ok": true}').call(request, never)).resolves.toEqual({ ok: true });
    expect(runawaySettled).toBe(false);
    expect((await runOut(runaway, 5_000)).message).toBe('sync hook: JSONata evaluation timed out after 5000 ms; its evaluator process was stopped');
  }, 60_000);

  it('reruns the calls sent after the one that crashed its process, which never started', async () => {
    const runner = hook(`who = "fatal" ? ${HOSTILE.fatalSize} : {"who": who}`);
    const calls = ['fatal', 'a', 'b', 'c'].map((who) => runner.call({ who }, never).then((r) => r, (err: unknown) => (err as Error).message));
    expect(await Promise.all(calls)).toEqual([
      'sync hook: JSONata evaluation built a value larger than JavaScript allows', { who: 'a' }, { who: 'b' }, { who: 'c' },
    ]);
  });

  it('rests an expression that ends its process twice in a row for one parent, for that parent only', async () => {
    const runner = hook(`parent.spec.bad ? ${HOSTILE.fatalSize} : {"name": parent.metadata.name}`);
    const bad = { parent: { metadata: { name: 'bad', uid: 'uid-bad' }, spec: { bad: true } } };
    const good = { parent: { metadata: { name: 'good', uid: 'uid-good' }, spec: {} } };
    await failure(runner.call(bad, never));
    await failure(runner.call(bad, never));
    const rested = await failure(runner.call(bad, never));
    expect(rested.message).toBe('sync hook: JSONata evaluation built a value larger than JavaScript allows '
      + '(it has ended its evaluator process several times in a row, so it rests before it is evaluated again)');
    await expect(runner.call(good, never)).resolves.toEqual({ name: 'good' });
  });

  it('runs one call of an expression at a time, so a runaway never holds more than one process', async () => {
    const runaway = hook(HOSTILE.backtracking, { timeoutMs: 3_000 });
    const settled: string[] = [];
    const first = failure(runaway.call(request, never)).then(() => settled.push('first'));
    const second = failure(runaway.call(request, never)).then(() => settled.push('second'));
    await hook('{"ok": true}').call(request, never);
    await hook('{"ok": true}').call(request, never);
    // The other expression ran beside them, on the other process, while no deadline had passed.
    expect(settled).toEqual([]);
    // The second call starts only once the first has been stopped, so it ends after it.
    await runOut(Promise.all([first, second]), 3_000);
    expect(settled).toEqual(['first', 'second']);
  }, 60_000);
});

describe('isolated JSONata runner: calls that do not run', () => {
  it('says the caller aborted a call that was waiting for a process', async () => {
    const pool = poolOf({ processes: 1 });
    const busy = failure(hook(HOSTILE.backtracking, {}, pool).call(request, never));
    const caller = new AbortController();
    const waiting = failure(hook('{"ok": true}', {}, pool).call(request, caller.signal));
    caller.abort(new Error('parent deleted'));
    expect((await waiting).message).toBe('sync hook: JSONata evaluation aborted by the caller');
    pool.close();
    await busy;
  });

  it('fails calls when the evaluator program cannot start, instead of hanging them', async () => {
    const pool = poolOf({ entry: new URL('./no-such-evaluator.ts', import.meta.url) });
    const error = await failure(hook('{"ok": true}', {}, pool).call(request, never));
    expect(error.message).toMatch(/^sync hook: JSONata evaluation did not run: could not start a JSONata evaluator process \(exit code 1\): .*no-such-evaluator/s);
  });

  it('fails a running call when the pool closes', async () => {
    const pool = poolOf();
    const running = failure(hook(HOSTILE.backtracking, {}, pool).call(request, never));
    await hook('{}', {}, pool).call(request, never);
    pool.close();
    expect((await running).message).toBe('sync hook: JSONata evaluation did not run: the JSONata evaluators have stopped');
  });

  it('fails calls of a released expression', async () => {
    const runner = hook('{"ok": true}');
    runner.release();
    expect((await failure(runner.call(request, never))).message).toBe("sync hook: JSONata evaluation did not run: the sync hook's expression is no longer in use");
  });
});

describe('isolated JSONata runner: observer', () => {
  it('counts answers 200, expression failures 500 and calls killed at their deadline as timeout', async () => {
    const outcomes: HookRequestOutcome[] = [];
    const observer = { requestStarted: () => undefined, requestFinished: (o: HookRequestOutcome) => void outcomes.push(o) };
    await hook('{}', { observer }).call(request, never);
    await hook('$error("x")', { observer }).call(request, never).catch(() => undefined);
    await runOut(hook(HOSTILE.backtracking, { observer, timeoutMs: 200 }).call(request, never).catch(() => undefined), 200);
    expect(outcomes.map((o) => o.code)).toEqual(['200', '500', 'timeout']);
  });
});
