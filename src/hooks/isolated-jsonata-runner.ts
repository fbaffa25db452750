/**
 * The JSONata {@link HookRunner} `loom run` uses: the same expression, view, results and errors as the
 * in-process runner (`jsonata-runner.ts`), evaluated in an evaluator process of a shared pool
 * (`evaluator-pool.ts`), so that an expression that runs away inside one native call, or kills V8,
 * fails only its own call. The expression is compiled here first, so a syntax error is reported when
 * the controller starts, exactly as in-process.
 */
import { HookError } from './hook-error.ts';
import { NO_RESPONSE } from './hook-observer.ts';
import type { HookRunner } from './hook-runner.ts';
import { fromWireFailure } from './evaluator-protocol.ts';
import type { EvaluatorPool, PooledExpression } from './evaluator-pool.ts';
import { compileJsonataHook, type JsonataHookOptions } from './jsonata-runner.ts';

/** A runner whose expression stays defined in the pool until it is released. */
export interface IsolatedJsonataHook extends HookRunner {
  /** Drops the expression from the pool; later calls fail. Idempotent. */
  release(): void;
}

/**
 * Compiles `options.expression` (throwing `JsonataCompileError` as {@link compileJsonataHook} does) and
 * returns a runner that evaluates it in `pool`, on the fair share of controller `owner` (see
 * `evaluator-pool.ts`; absent: a share of its own). Each call resolves or rejects as the in-process
 * runner's would, with two more failures: the process was killed at the deadline (a `HookError` that
 * says the evaluation timed out) or died of the memory limit or another crash (a `HookError` naming it).
 * The observer sees every call, with the same codes as in-process.
 */
export function compileIsolatedJsonataHook(options: JsonataHookOptions, pool: EvaluatorPool, owner?: string): IsolatedJsonataHook {
  compileJsonataHook(options);
  const { expression, hook, timeoutMs, maxDepth, result, label } = options;
  const pooled = pool.define({ expression, hook, timeoutMs, maxDepth, result, label }, owner);
  return {
    call: (request, signal) => evaluate(pooled, options, request, signal),
    release: () => pooled.forget(),
  };
}

/**
 * Whose input a hook request is: the UID of its parent (`parent`, or a decorator's `object`), so an
 * expression that ends its evaluator process for one parent's data rests for that parent only.
 */
function inputKey(request: unknown): string {
  const { parent, object } = (typeof request === 'object' && request !== null ? request : {}) as { parent?: unknown; object?: unknown };
  const meta = ((parent ?? object) as { metadata?: Record<string, unknown> } | undefined)?.metadata ?? {};
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  return text(meta.uid) || `${text(meta.namespace)}/${text(meta.name)}`;
}

/** The error for a call the pool did not answer: the caller aborted, or the pool or expression was closed. */
function unanswered(hook: string, error: unknown, signal: AbortSignal): HookError {
  if (signal.aborted) return new HookError(`${hook} hook: JSONata evaluation aborted by the caller`, { cause: signal.reason });
  return new HookError(`${hook} hook: JSONata evaluation did not run: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}

async function evaluate(pooled: PooledExpression, options: JsonataHookOptions, request: unknown, signal: AbortSignal): Promise<Record<string, unknown>> {
  const { hook, clock, observer } = options;
  const started = clock.now();
  observer?.requestStarted();
  let code: string = NO_RESPONSE.error;
  try {
    const answer = await pooled.evaluate(request, signal, inputKey(request)).catch((error: unknown) => {
      if (signal.aborted) code = NO_RESPONSE.aborted;
      throw unanswered(hook, error, signal);
    });
    if ('response' in answer) {
      code = '200';
      return answer.response;
    }
    code = answer.failure.code;
    throw fromWireFailure(answer.failure);
  } finally {
    observer?.requestFinished({ code, durationSeconds: (clock.now() - started) / 1000 });
  }
}
