/**
 * A `readyWhen` expression (docs/ordering-and-readiness.md, "`readyWhen`: your own rule"): JSONata over
 * one observed object (`$` is the object), evaluated in the isolated evaluator processes with the
 * bounds of a JSONata hook. `true` is ready (`Current`), `false` is not yet (`InProgress`), and any
 * other value, an error or a spent budget is `Unknown`, with a message that says which: one bad
 * expression makes its objects `Unknown`, never a failed sync.
 */
import type { KubeObject } from '../api/object.ts';
import type { Readiness } from '../api/readiness/index.ts';
import type { EvaluatorAnswer, EvaluatorPool } from './evaluator-pool.ts';
import { compileJsonataHook } from './jsonata-runner.ts';
import type { HookClock } from './webhook-runner.ts';

/** What one `readyWhen` expression is compiled from. */
export interface ReadyWhenOptions {
  expression: string;
  /** Where it is written, for every message: `spec.childResources[0].readyWhen`, `annotation loom.dev/ready-when`. */
  source: string;
  /** Evaluation budget of each object, in milliseconds (a JSONata hook's). */
  timeoutMs: number;
  maxDepth?: number | undefined;
  clock: HookClock;
}

/** A verdict, and whether it stands for as long as the object does not change. */
export interface ReadyWhenVerdict {
  readiness: Readiness;
  /**
   * `true` when the same object would always get the same verdict: a value, or an error of the
   * expression itself, of an expression that reads neither the clock nor chance ({@link readsTheClock}). A spent budget, a crash, a call stopped to make room or never run may go
   * otherwise on a less busy evaluator, so they are judged again next time.
   */
  lasting: boolean;
}

/** A compiled `readyWhen`, defined in the pool until released. */
export interface ReadyWhen {
  readonly expression: string;
  /** Where it is written (named in its verdicts' messages). */
  readonly source: string;
  /** The readiness of `object` by the expression. Never rejects. */
  judge(object: KubeObject, signal: AbortSignal): Promise<ReadyWhenVerdict>;
  /** Drops the expression from the pool; later judgements are `Unknown`. Idempotent. */
  release(): void;
}

/** "a string", "an object", … for a message about a value that is not a boolean. */
function describe(value: unknown): string {
  if (value === undefined) return 'no value';
  const shown = JSON.stringify(value);
  const text = shown.length > 60 ? `${shown.slice(0, 57)}...` : shown;
  if (value === null) return 'null';
  return `${text} (${Array.isArray(value) ? 'an array' : `a ${typeof value}`})`;
}

/**
 * JSONata's functions whose value is not the object's alone: the clock and chance. Read from the text,
 * so a mention anywhere (a string, a variable of that name) counts too: judging again is the safe error.
 */
const UNSTEADY = /\$(now|millis|random)\b/;

/** True when the same object may get another verdict from `expression` later, however it is evaluated. */
function readsTheClock(expression: string): boolean {
  return UNSTEADY.test(expression);
}

/** The verdict of one answer of the evaluator. */
function verdictOf(source: string, answer: EvaluatorAnswer): ReadyWhenVerdict {
  if ('failure' in answer) return { readiness: { status: 'Unknown', message: answer.failure.message }, lasting: answer.failure.kind === 'evaluation' };
  const { value } = answer.response;
  if (value === true) return { readiness: { status: 'Current', message: `${source} is true` }, lasting: true };
  if (value === false) return { readiness: { status: 'InProgress', message: `${source} is false` }, lasting: true };
  return { readiness: { status: 'Unknown', message: `${source} gave ${describe(value)}, not true or false` }, lasting: true };
}

/** Which object an evaluation is for, so an expression that ends its process for one object rests for that one only. */
function objectKey(object: KubeObject): string {
  return object.metadata.uid ?? `${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
}

/**
 * Compiles `options.expression` (throwing `JsonataCompileError`, its message starting with
 * `options.source`, for one that does not compile) and defines it in `pool` on the fair share of
 * controller `owner`, as the controller's hooks are.
 */
export function compileReadyWhen(options: ReadyWhenOptions, pool: EvaluatorPool, owner?: string): ReadyWhen {
  const { expression, source, timeoutMs, maxDepth, clock } = options;
  // The hook kind only names the expression in the pool's own messages; `label` names it everywhere else.
  const definition = { expression, hook: 'sync' as const, label: source, timeoutMs, maxDepth, result: 'value' as const };
  compileJsonataHook({ ...definition, clock });
  const pooled = pool.define(definition, owner);
  const steady = !readsTheClock(expression);
  return {
    expression,
    source,
    judge: async (object, signal) => {
      try {
        const verdict = verdictOf(source, await pooled.evaluate(object, signal, objectKey(object)));
        return { ...verdict, lasting: verdict.lasting && steady };
      } catch (error) {
        const why = signal.aborted ? 'aborted' : `did not run: ${error instanceof Error ? error.message : String(error)}`;
        return { readiness: { status: 'Unknown', message: `${source}: evaluation ${why}` }, lasting: false };
      }
    },
    release: () => pooled.forget(),
  };
}
