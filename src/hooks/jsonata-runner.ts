/**
 * The inline JSONata {@link HookRunner} (docs/jsonata.md; docs/architecture.md,
 * "Hooks: webhooks and JSONata"): the expression's input `$` is exactly the request a webhook would
 * receive, and its result is exactly the response a webhook would send, returned as plain JSON for the
 * caller to decode like any other.
 *
 * Bounded (docs/architecture.md, "Bounded calls"). JSONata evaluates asynchronously but never waits for
 * anything, so an evaluation runs on microtasks and holds the event loop until it ends. JSONata's
 * guardrails, checked synchronously before every evaluation step, end a runaway (`jsonata-budget.ts`):
 * - time: a call fails once it has run `timeoutMs` on the injected clock since it started, or once
 *   the caller's signal has aborted. Calls of one runner are evaluated one at a time, each with its
 *   own budget;
 * - depth: recursion nested deeper than `maxDepth` fails. (A tail call does not nest, so a
 *   tail-recursive loop meets the time bound instead.)
 * Because evaluation holds the event loop, an abort signalled by a timer or by I/O is seen when the
 * call starts, not in the middle: the time budget is what bounds a running call. A regex literal runs
 * as one native call that no step check can interrupt; V8's backtracking fallback bounds it
 * (`boundRegexBacktracking`). Memory is not bounded beyond what the time budget allows an expression
 * to allocate.
 *
 * Contained. An expression sees its input, the variables it binds, JSONata's function library and
 * loom's helpers (`jsonata-helpers.ts`), and nothing else: JSONata has no syntax to reach a JS global
 * (`$process`, `$require`, `$globalThis` are unbound variables), reads only own fields of objects and
 * never fields of functions (`$.constructor`, `$$.__proto__`, `$string.implementation` are all
 * `undefined`), `$eval` evaluates in the same environment and inside the same bounds, and a result that
 * holds a function is refused, so no function leaves an evaluation. The tests in
 * `jsonata-runner.test.ts` try these ways out.
 */
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import type jsonata from 'jsonata';
import { HookError } from './hook-error.ts';
import { NO_RESPONSE, type HookObserver } from './hook-observer.ts';
import type { HookKind, HookRunner } from './hook-runner.ts';
import { JsonataCompileError, JsonataEvaluationError, type ExpressionLocation } from './jsonata-errors.ts';
import { evaluationBudget, type BudgetStop, type EvaluationBudget, type GuardrailOptions } from './jsonata-budget.ts';
import { JSONATA_HELPERS } from './jsonata-helpers.ts';
import { toResponse } from './jsonata-result.ts';
import type { HookClock } from './webhook-runner.ts';

/** Nesting allowed when `maxDepth` is not given: far beyond any sensible response; about 160 levels of non-tail recursion. */
export const DEFAULT_JSONATA_MAX_DEPTH = 500;

/** Everything one JSONata runner needs; resolved once per controller generation. */
export interface JsonataHookOptions {
  /** The JSONata source (inline, or read from a ConfigMap). */
  expression: string;
  /** Which hook this is; named in every error message. */
  hook: HookKind;
  /** Evaluation budget of each call, in milliseconds; must be positive. loom's default is 1 s. */
  timeoutMs: number;
  /** Deepest nesting of evaluation steps allowed; defaults to {@link DEFAULT_JSONATA_MAX_DEPTH}. */
  maxDepth?: number | undefined;
  /** Measures the time budget and the durations reported to `observer`. */
  clock: HookClock;
  observer?: HookObserver | undefined;
  /**
   * What the result is: a hook `response` (a JSON object; the default), or any JSON `value`, returned
   * as `{"value": …}` (`{}` for no value), for expressions that are not hooks (a child's `readyWhen`).
   */
  result?: 'response' | 'value' | undefined;
  /** How every message starts; default `<hook> hook`. */
  label?: string | undefined;
}

/** JSONata's code for its `stack` guard. */
const TOO_DEEP = 'D1011';

interface RunnerConfig {
  /** "sync hook": how every message starts. */
  label: string;
  result: 'response' | 'value';
  timeoutMs: number;
  maxDepth: number;
  clock: HookClock;
  observer: HookObserver | undefined;
}

/** JSONata throws plain objects with these fields, and wraps a failure inside `$eval` in `error`. */
interface JsonataFailure {
  code?: unknown;
  position?: unknown;
  token?: unknown;
  message?: unknown;
  error?: unknown;
}

function configOf(options: JsonataHookOptions): RunnerConfig {
  const label = options.label ?? `${options.hook} hook`;
  const { timeoutMs, maxDepth = DEFAULT_JSONATA_MAX_DEPTH, result = 'response' } = options;
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) throw new HookError(`${label}: JSONata timeout ${timeoutMs} ms must be positive`);
  if (!(Number.isInteger(maxDepth) && maxDepth > 0)) throw new HookError(`${label}: JSONata maximum depth ${maxDepth} must be a positive integer`);
  return { label, result, timeoutMs, maxDepth, clock: options.clock, observer: options.observer };
}

/** 1-based line and column of `offset` in `text` (also where `loom validate` places what it finds in an expression). */
export function locate(text: string, offset: number): ExpressionLocation {
  const before = text.slice(0, offset);
  return { position: offset, line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

/**
 * Where a syntax error is. JSONata's `position` is just past the offending token: step back over the
 * token when the source there spells it (as is, or quoted: a string token lacks its quotes), else one
 * character. "End of expression" errors stay at the end, but never past the last non-blank character
 * (the blank line a YAML `|` block leaves). The same rule as `loom validate`, so both report one place.
 */
function syntaxErrorOffset(expression: string, position: number, token: unknown): number {
  const text = typeof token === 'string' || typeof token === 'number' ? String(token) : '';
  let start = position;
  if (text !== '' && text !== '(end)') {
    const spelled = [text, `"${text}"`, `'${text}'`].find((s) => expression.slice(position - s.length, position) === s);
    start = position - (spelled?.length ?? 1);
  }
  return Math.max(0, Math.min(start, expression.trimEnd().length));
}

function compileError(label: string, expression: string, error: unknown): JsonataCompileError {
  const failure = (typeof error === 'object' && error !== null ? error : {}) as JsonataFailure;
  const message = typeof failure.message === 'string' ? failure.message : String(error);
  const position = typeof failure.position === 'number' ? failure.position : expression.length;
  const location = locate(expression, syntaxErrorOffset(expression, position, failure.token));
  const code = typeof failure.code === 'string' ? failure.code : undefined;
  return new JsonataCompileError(`${label}: JSONata syntax error at line ${location.line}, column ${location.column}: ${message}`, { ...location, code }, { cause: error });
}

/**
 * Lets V8 fall back to its linear-time regular expression engine when a match backtracks excessively.
 * A regex literal in an expression runs as one native call that no entry callback can interrupt, so
 * without this `$match(s, /^(a+)+$/)` could hold the process for hours. Process-wide and idempotent;
 * it changes no result, only how a runaway match is computed. (Patterns the linear engine cannot run,
 * with backreferences or lookarounds, keep the backtracking engine.)
 */
function boundRegexBacktracking(): void {
  setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
}

/**
 * JSONata itself, loaded by the first compile: a host whose controllers all call webhooks never
 * holds it.
 */
function jsonataLibrary(): typeof jsonata {
  return createRequire(import.meta.url)('jsonata') as typeof jsonata;
}

function compile(options: JsonataHookOptions, config: RunnerConfig, guardrails: GuardrailOptions): jsonata.Expression {
  boundRegexBacktracking();
  let expression: jsonata.Expression;
  try {
    expression = jsonataLibrary()(options.expression, guardrails);
  } catch (error) {
    throw compileError(config.label, options.expression, error);
  }
  for (const helper of JSONATA_HELPERS) expression.registerFunction(helper.name, helper.implementation);
  return expression;
}

/** True when JSONata's depth guard stopped the evaluation, even from inside `$eval`, which wraps what it catches. */
function isTooDeep(error: unknown): boolean {
  for (let e = error as JsonataFailure | undefined; typeof e === 'object' && e !== null; e = e.error as JsonataFailure | undefined) {
    if (e.code === TOO_DEEP) return true;
  }
  return false;
}

function evaluationError(config: RunnerConfig, error: unknown): JsonataEvaluationError {
  const failure = (typeof error === 'object' && error !== null ? error : {}) as JsonataFailure;
  const message = typeof failure.message === 'string' ? failure.message : String(error);
  const position = typeof failure.position === 'number' ? failure.position : undefined;
  const code = typeof failure.code === 'string' ? failure.code : undefined;
  const where = position === undefined ? '' : ` at position ${position}`;
  return new JsonataEvaluationError(`${config.label}: JSONata error${where}: ${message}`, { code, position }, { cause: error });
}

/** The one error for a failed evaluation, with the observer code it counts as. */
function failureOf(config: RunnerConfig, error: unknown, stopped: BudgetStop | undefined, signal: AbortSignal): { error: HookError; code: string } {
  switch (stopped) {
    case 'abort':
      return { error: new HookError(`${config.label}: JSONata evaluation aborted by the caller`, { cause: signal.reason }), code: NO_RESPONSE.aborted };
    case 'timeout':
      return { error: new HookError(`${config.label}: JSONata evaluation timed out after ${config.timeoutMs} ms`, { cause: error }), code: NO_RESPONSE.timeout };
    default:
      if (isTooDeep(error)) {
        return { error: new HookError(`${config.label}: JSONata evaluation exceeded the maximum depth of ${config.maxDepth}`, { cause: error }), code: '500' };
      }
      return { error: evaluationError(config, error), code: '500' };
  }
}

type Outcome = { response: Record<string, unknown> } | { error: HookError; code: string };

interface Compiled {
  expression: jsonata.Expression;
  budget: EvaluationBudget;
}

/** Evaluates once within the budget and says how it went; never rejects. */
async function outcomeOf({ expression, budget }: Compiled, config: RunnerConfig, request: unknown, signal: AbortSignal): Promise<Outcome> {
  const { settled, stopped } = await budget.run(signal, () => expression.evaluate(request));
  if (settled.status === 'rejected') return failureOf(config, settled.reason, stopped, signal);
  // A value is checked as the one field of a response, so it gets the same copy and the same checks.
  const result: unknown = settled.value;
  const converted = toResponse(config.result === 'value' ? { value: result } : result);
  if ('response' in converted) return converted;
  const what = config.result === 'value' ? 'is not JSON' : 'is not a valid response';
  return { error: new HookError(`${config.label}: the JSONata result ${what}: ${converted.problem}`), code: '500' };
}

async function evaluate(compiled: Compiled, config: RunnerConfig, request: unknown, signal: AbortSignal): Promise<unknown> {
  const started = config.clock.now();
  config.observer?.requestStarted();
  let outcome: Outcome | undefined;
  try {
    outcome = await outcomeOf(compiled, config, request, signal);
  } finally {
    const code = outcome === undefined ? '500' : 'response' in outcome ? '200' : outcome.code;
    config.observer?.requestFinished({ code, durationSeconds: (config.clock.now() - started) / 1000 });
  }
  if ('response' in outcome) return outcome.response;
  throw outcome.error;
}

/**
 * Compiles a JSONata hook once (per controller generation) into a {@link HookRunner}. Throws a
 * {@link JsonataCompileError} for an expression that does not compile (message, JSONata code, offset,
 * line and column), and a `HookError` for a timeout or depth that is not positive.
 *
 * Each `call(request, signal)` evaluates the expression with `request` as `$` and loom's helpers bound,
 * and resolves to the result as fresh plain JSON (`{}` when the result is `undefined`). It rejects with:
 * - {@link JsonataEvaluationError} `sync hook: JSONata error at position 7: boom` for a runtime error
 *   (`$error`, a type error, a helper's complaint), with JSONata's `code` and `position`;
 * - `HookError` `… JSONata evaluation timed out after 1000 ms` when the time budget is spent;
 * - `HookError` `… JSONata evaluation exceeded the maximum depth of 500` for runaway recursion;
 * - `HookError` `… JSONata evaluation aborted by the caller` (`cause` = the signal's reason) when the
 *   signal had aborted before the call started;
 * - `HookError` `… the JSONata result is not a valid response: children[0] is a function` for a result
 *   that is not a JSON object (a function, a number JSON cannot carry, an array or string at the top).
 *
 * The observer sees each call as a request: code `200` on success, `500` for an expression that failed,
 * `timeout` or `aborted` ({@link NO_RESPONSE}) for a call that got no answer (as the webhook runner counts them).
 *
 * Also lets V8 bound regular expression backtracking, process-wide (see `boundRegexBacktracking`).
 */
export function compileJsonataHook(options: JsonataHookOptions): HookRunner {
  const config = configOf(options);
  const budget = evaluationBudget(config.timeoutMs, config.maxDepth, config.clock);
  const compiled = { expression: compile(options, config, budget.options), budget };
  return { call: (request, signal) => evaluate(compiled, config, request, signal) };
}
