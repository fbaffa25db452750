import { describe, expect, it } from 'vitest';
import { systemClock } from '../engine/clock.ts';
import { HookError } from './hook-error.ts';
import { NO_RESPONSE, type HookRequestOutcome } from './hook-observer.ts';
import { JsonataCompileError, JsonataEvaluationError } from './jsonata-errors.ts';
import { CLOCK_CHECK_INTERVAL } from './jsonata-budget.ts';
import { compileJsonataHook, DEFAULT_JSONATA_MAX_DEPTH, type JsonataHookOptions } from './jsonata-runner.ts';

const request = {
  controller: { metadata: { name: 'web-controller' } },
  parent: { apiVersion: 'example.com/v1', kind: 'WebApp', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 2 } },
  children: { 'ConfigMap.v1': {} },
  related: {},
  finalizing: false,
};

/** A clock that moves 1 ms at every reading, so budgets run out after a known number of readings. */
function steppingClock(start = 1_000_000) {
  let now = start;
  return { now: () => now++, readings: () => now - start };
}

function runner(expression: string, options: Partial<JsonataHookOptions> = {}) {
  return compileJsonataHook({ expression, hook: 'sync', timeoutMs: 1_000, clock: steppingClock(), ...options });
}

function call(expression: string, options: Partial<JsonataHookOptions> = {}, input: unknown = request): Promise<unknown> {
  return runner(expression, options).call(input, new AbortController().signal);
}

/** The rejection of `promise`, which must reject. */
async function failure(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    (value) => ({ rejected: false, value }),
    (error: unknown) => ({ rejected: true, value: error }),
  );
  expect(outcome.rejected, `resolved with ${JSON.stringify(outcome.value)}`).toBe(true);
  expect(outcome.value).toBeInstanceOf(HookError);
  return outcome.value as Error;
}

// Runaways that end by themselves unbounded (in well under a second), so a broken bound fails a test
// instead of hanging the run: evaluation holds the event loop, so no test timeout could stop it.
/** A tail-recursive loop of 100,000 rounds: it never nests, so only the time budget stops it. */
const LONG = '($f := function($n) { $n >= 100000 ? {"done": $n} : $f($n + 1) }; $f(0))';
/** Recursion 5,000 calls deep (~15,000 steps of nesting). */
const DEEP = '($f := function($n) { $n = 0 ? 0 : 1 + $f($n - 1) }; {"depth": $f(5000)})';

describe('JSONata runner: results', () => {
  it('evaluates with the request as input and returns the result as plain JSON', async () => {
    const expression = '{"children": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": parent.metadata.name & "-cm"}}], "status": {"replicas": parent.spec.replicas}}';
    await expect(call(expression)).resolves.toEqual({
      children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-cm' } }],
      status: { replicas: 2 },
    });
  });

  it('returns {} when the result is undefined', async () => {
    await expect(call('parent.nothing')).resolves.toEqual({});
  });

  it('strips JSONata’s sequence flags from arrays', async () => {
    const result = (await call('{"a": [1, 2, 3][$ > 1], "b": [parent.metadata.name]}')) as { a: unknown[]; b: unknown[] };
    expect(result).toEqual({ a: [2, 3], b: ['web'] });
    expect(Object.keys(result.a)).toEqual(['0', '1']);
    expect(Object.keys(result.b)).toEqual(['0']);
  });

  it('returns a copy that shares nothing with the request', async () => {
    const result = (await call('{"p": parent, "again": parent}')) as { p: unknown; again: unknown };
    expect(result.p).toEqual(request.parent);
    expect(result.p).not.toBe(request.parent);
    expect(result.p).not.toBe(result.again);
  });

  it('keeps a "__proto__" field as a field, as JSON.parse would', async () => {
    const result = (await call('{"__proto__": {"x": 1}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.keys(result)).toEqual(['__proto__']);
  });

  it.each([
    ['a function', 'function($x) { $x }', 'expected an object, got a function'],
    ['an array', '[1, 2]', 'expected an object, got an array'],
    ['a string', '"done"', 'expected an object, got a string'],
    ['null', 'null', 'expected an object, got null'],
    ['a nested function', '{"children": [{"spec": {"f": $uppercase}}]}', 'children[0].spec.f is a function'],
    ['a regex', '{"status": {"pattern": /ab+/}}', 'status.pattern is a function'],
  ])('rejects %s as not a valid response', async (_name, expression, problem) => {
    const error = await failure(call(expression));
    expect(error.message).toBe(`sync hook: the JSONata result is not a valid response: ${problem}`);
  });
});

describe('JSONata runner: compile errors', () => {
  it.each<[string, string, [line: number, column: number], string]>([
    ['a dangling operator', '{\n  "children": [ parent.metadata.name & ]\n}', [2, 40], 'The symbol "]" cannot be used as a unary operator'],
    ['an unclosed call', '(\n  $a := 1;\n  $f(1, 2\n)', [4, 2], 'Expected ")" before end of expression'],
    ['an unterminated string', '{"a": "abc}', [1, 12], 'String literal must be terminated by a matching quote'],
    ['two names in a row', 'parent child', [1, 8], 'Syntax error: "child"'],
  ])('reports %s with line and column', (_name, expression, [line, column], message) => {
    let thrown: unknown;
    try {
      runner(expression);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(JsonataCompileError);
    expect(thrown).toBeInstanceOf(HookError);
    const error = thrown as JsonataCompileError;
    expect(error.message).toBe(`sync hook: JSONata syntax error at line ${line}, column ${column}: ${message}`);
    expect({ line: error.line, column: error.column }).toEqual({ line, column });
    const lines = expression.split('\n');
    expect(error.position).toBe(lines.slice(0, line - 1).reduce((sum, l) => sum + l.length + 1, 0) + column - 1);
    expect(error.code).toMatch(/^S0\d{3}$/);
  });

  it.each<[string, Partial<JsonataHookOptions>, string]>([
    ['a zero timeout', { timeoutMs: 0 }, 'sync hook: JSONata timeout 0 ms must be positive'],
    ['a NaN timeout', { timeoutMs: Number.NaN }, 'must be positive'],
    ['a fractional depth', { maxDepth: 1.5 }, 'sync hook: JSONata maximum depth 1.5 must be a positive integer'],
  ])('rejects %s at once', (_name, options, message) => {
    expect(() => runner('{}', options)).toThrow(HookError);
    expect(() => runner('{}', options)).toThrow(message);
  });
});

describe('JSONata runner: runtime errors', () => {
  it.each<[string, string, string, [code: string, position: number, line: number, column: number]]>([
    ['$error', '$error("boom")', 'boom', ['D3137', 7, 1, 1]],
    ['a type error', '{"n": parent.metadata.name + 1}', 'The left side of the "+" operator must evaluate to a number', ['T2001', 28, 1, 28]],
    ['calling a non-function', '$nothing()', 'Attempted to invoke a non-function', ['T1006', 9, 1, 1]],
    ['a misspelt function on line 3', '(\n  $a := 1;\n  $b := $uppercas("x");\n  $b\n)', 'Attempted to invoke a non-function', ['T1006', 31, 3, 9]],
    ['a function applied with ~>', '{\n  "a": [1, 2]\n    ~> $sum(1)\n}', 'Argument 2 of function "sum" does not match function signature', ['T0410', 28, 3, 8]],
    ['a call spaced from its parenthesis', '"x" &\n  $number ("y")', 'Unable to cast value to a number: "y"', ['D3030', 17, 2, 3]],
  ])('reports %s with its line and column, keeping JSONata’s code and position', async (_name, expression, message, [code, position, line, column]) => {
    const error = await failure(call(expression));
    expect(error).toBeInstanceOf(JsonataEvaluationError);
    expect(error.message).toBe(`sync hook: JSONata error at line ${line}, column ${column}: ${message}`);
    expect(error).toMatchObject({ code, position, line, column });
  });

  it('reports a helper’s complaint with its line and column', async () => {
    const error = await failure(call('{"name": $dnsName(parent.nothing)}'));
    expect(error).toBeInstanceOf(JsonataEvaluationError);
    expect(error.message).toBe('sync hook: JSONata error at line 1, column 10: $dnsName: part 1 must be a string or a number, got nothing');
    expect((error as JsonataEvaluationError).code).toBeUndefined();
  });

  it('names the hook', async () => {
    const error = await failure(call('$error("no")', { hook: 'customize' }));
    expect(error.message).toMatch(/^customize hook: /);
  });
});

describe('JSONata runner: bounds', () => {
  it('stops a long loop that never nests when the time budget is spent', async () => {
    const clock = steppingClock();
    const error = await failure(call(LONG, { timeoutMs: 50, clock }));
    expect(error.message).toBe('sync hook: JSONata evaluation timed out after 50 ms');
    // One reading starts the call, then one per check interval until the 50 ms have passed.
    expect(clock.readings()).toBeGreaterThan(50);
    expect(clock.readings()).toBeLessThan(60);
  });

  it('stops long work in wall time with the real clock', async () => {
    const error = await failure(call('$sum([1..1000000].($ * 2))', { timeoutMs: 50, clock: systemClock }));
    expect(error.message).toBe('sync hook: JSONata evaluation timed out after 50 ms');
  });

  it('stops a runaway inside $eval too', async () => {
    const error = await failure(call(`$eval('${LONG}')`, { timeoutMs: 50 }));
    expect(error.message).toBe('sync hook: JSONata evaluation timed out after 50 ms');
  });

  it('stops deep recursion at the maximum depth', async () => {
    const error = await failure(call(DEEP, { timeoutMs: 60_000 }));
    expect(error.message).toBe(`sync hook: JSONata evaluation exceeded the maximum depth of ${DEFAULT_JSONATA_MAX_DEPTH}`);
  });

  it('applies a given maximum depth, also inside $eval', async () => {
    const recurse = (n: number) => `($f := function($n) { $n = 0 ? 0 : 1 + $f($n - 1) }; {"d": $f(${n})})`;
    await expect(call(recurse(20), { maxDepth: 200 })).resolves.toEqual({ d: 20 });
    const error = await failure(call(recurse(100), { maxDepth: 200 }));
    expect(error.message).toBe('sync hook: JSONata evaluation exceeded the maximum depth of 200');
    const inEval = await failure(call(`$eval('${DEEP}')`, { maxDepth: 200 }));
    expect(inEval.message).toBe('sync hook: JSONata evaluation exceeded the maximum depth of 200');
  });

  it('gives each of several concurrent calls its own budget', async () => {
    const clock = steppingClock();
    const shared = runner(`loop ? ${LONG} : {"ok": true}`, { timeoutMs: 50, clock });
    const signal = new AbortController().signal;
    const [slow, fine] = await Promise.allSettled([shared.call({ loop: true }, signal), shared.call({ loop: false }, signal)]);
    expect(slow).toMatchObject({ status: 'rejected', reason: { message: 'sync hook: JSONata evaluation timed out after 50 ms' } });
    expect(fine).toEqual({ status: 'fulfilled', value: { ok: true } });
    // The spent budget was that call's alone.
    await expect(shared.call({ loop: false }, signal)).resolves.toEqual({ ok: true });
  });
});

describe('JSONata runner: work left behind by a failed call', () => {
  // An array constructor evaluates its items together: when one fails, the call rejects while the
  // others run on. `$loop` runs 100,000 rounds (finite, like LONG), reading `$.tick` at each.
  const LOOP = '$loop := function($n) { $n >= 100000 ? $n : ($.tick; $loop($n + 1)) }';

  /** An input whose `tick` counts how often the expression read it. */
  function ticking(fields: object = {}) {
    const input = { ...fields, ticks: 0 };
    Object.defineProperty(input, 'tick', { enumerable: true, get: () => ++input.ticks });
    return input;
  }

  it('stops the failed call’s other items at once', async () => {
    const input = ticking();
    const error = await failure(call(`(${LOOP}; [$loop(0), $error("boom")])`, { timeoutMs: 60_000 }, input));
    expect(error.message).toMatch(/boom/);
    const atFailure = input.ticks;
    // Evaluation holds the event loop: a timer fires only once the leftover loop has stopped or ended.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(input.ticks - atFailure).toBeLessThan(10);
  });

  it('stops what a timed-out call left behind, and the next call still answers', async () => {
    const shared = runner(`loop ? (${LOOP}; [$loop(0), $loop(0)]) : {"ok": true}`, { timeoutMs: 20, clock: systemClock });
    const signal = new AbortController().signal;
    const input = ticking({ loop: true });
    const [slow, fine] = await Promise.allSettled([shared.call(input, signal), shared.call({ loop: false }, signal)]);
    expect(slow).toMatchObject({ status: 'rejected', reason: { message: 'sync hook: JSONata evaluation timed out after 20 ms' } });
    expect(fine).toEqual({ status: 'fulfilled', value: { ok: true } });
    await new Promise((resolve) => setTimeout(resolve, 0));
    // Run to their end, the two loops would read `tick` 200,000 times; 20 ms allows a small part of that.
    expect(input.ticks).toBeLessThan(100_000);
  });

  it('lets the event loop turn between a failed call and the next one', async () => {
    const shared = runner(LONG, { timeoutMs: 20 });
    const signal = new AbortController().signal;
    const order: string[] = [];
    const settledAs = (name: string) => (promise: Promise<unknown>) => promise.catch(() => order.push(name));
    const calls = [settledAs('first')(shared.call(request, signal)), settledAs('second')(shared.call(request, signal))];
    // Queued now, it runs at the first turn of the event loop: after the first runaway, before the second.
    setImmediate(() => order.push('turn'));
    await Promise.all(calls);
    expect(order).toEqual(['first', 'turn', 'second']);
  });
});

describe('JSONata runner: abort', () => {
  it('does not evaluate when the signal has already aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('shutting down');
    controller.abort(reason);
    const clock = steppingClock();
    const error = await failure(runner('{"ok": true}', { clock }).call(request, controller.signal));
    expect(error.message).toBe('sync hook: JSONata evaluation aborted by the caller');
    expect(error.cause).toBe(reason);
  });

  it('stops an evaluation when the signal aborts while it runs', async () => {
    const controller = new AbortController();
    const reason = new Error('shutting down');
    let readings = 0;
    // The first reading starts the call; the second is the first check inside the evaluation.
    const clock = { now: () => (++readings === 2 ? (controller.abort(reason), readings) : readings) };
    const error = await failure(runner(LONG, { clock, timeoutMs: 60_000 }).call(request, controller.signal));
    expect(error.message).toBe('sync hook: JSONata evaluation aborted by the caller');
    expect(error.cause).toBe(reason);
  });
});

describe('JSONata runner: observer', () => {
  it.each<[string, string, string]>([
    ['a result', '{}', '200'],
    ['a runtime error', '$error("x")', '500'],
    ['an invalid result', '[1]', '500'],
    ['a timeout', LONG, NO_RESPONSE.timeout],
  ])('reports %s with code %s', async (_name, expression, code) => {
    const events: (string | HookRequestOutcome)[] = [];
    const observer = { requestStarted: () => events.push('started'), requestFinished: (o: HookRequestOutcome) => events.push(o) };
    await runner(expression, { observer, timeoutMs: 50 }).call(request, new AbortController().signal).catch(() => undefined);
    expect(events).toEqual(['started', { code, durationSeconds: expect.any(Number) as number }]);
  });
});

describe('JSONata runner: containment', () => {
  // Each expression tries to reach something outside its input; `{}` means it found nothing.
  it.each([
    ['the input’s constructor', '{"v": $.constructor}'],
    ['the root’s prototype', '{"v": $$.__proto__}'],
    ['a constructor through a prototype', '{"v": parent.__proto__.constructor}'],
    ['a string’s constructor', '{"v": "a".constructor}'],
    ['a lambda’s constructor', '{"v": (function($x) { $x }).constructor}'],
    ['$lookup of constructor', '{"v": $lookup($, "constructor")}'],
    ['a built-in’s implementation', '{"v": $string.implementation}'],
    ['a helper’s implementation', '{"v": $lookup($hash, "implementation")}'],
    ['a helper’s keys', '{"v": $keys($hash)}'],
    ['$eval of a constructor', '{"v": $eval("$.constructor")}'],
    ['process', '{"a": $process, "b": $eval("$process"), "c": process, "d": $$.process}'],
    ['require and module', '{"a": $require, "b": $module, "c": $import, "d": $exports}'],
    ['the globals', '{"a": $globalThis, "b": $global, "c": $window, "d": $Function, "e": $eval("$globalThis")}'],
    ['the environment', '{"a": $env, "b": $environment, "c": $this, "d": $self}'],
  ])('finds nothing at %s', async (_name, expression) => {
    await expect(call(expression)).resolves.toEqual({});
  });

  it('serialises the input with $string as data only', async () => {
    const result = (await call('{"v": $string($)}')) as { v: string };
    expect(JSON.parse(result.v)).toEqual(request);
  });

  it('does not hand out a function as part of a response', async () => {
    const error = await failure(call('{"v": $spread($hash)}'));
    expect(error.message).toContain('v is a function');
  });

  it.each([
    ['an object constructor', '{"__proto__": {"polluted": true}}'],
    ['$merge', '$merge([{"__proto__": {"polluted": true}}])'],
    ['a transform', '$ ~> |parent|{"__proto__": {"polluted": true}}|'],
  ])('does not pollute Object.prototype through %s', async (_name, expression) => {
    await call(expression).catch(() => undefined);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(request.parent)).toBe(Object.prototype);
  });

  it('reads the clock once per check interval, not at every step', async () => {
    const clock = steppingClock();
    await call('{"a": [1..1000].($ * 2)}', { clock });
    // Each of the 1,000 items takes several steps; one reading per step would be thousands.
    expect(clock.readings()).toBeGreaterThan(1000 / CLOCK_CHECK_INTERVAL);
    expect(clock.readings()).toBeLessThan(1000);
  });
});
