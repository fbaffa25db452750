/**
 * The readiness judge of one controller generation (docs/ordering-and-readiness.md, "`readyWhen`: your
 * own rule"), the same for `loom run` and the offline tools: its child types' `readyWhen` expressions
 * compiled once, and the `loom.dev/ready-when` annotations of its children compiled when first seen,
 * all evaluated in the evaluator processes on the controller's fair share, with a JSONata hook's
 * default budget. A type's expression that does not compile stops the controller from starting, as a
 * JSONata hook's does (`JsonataCompileError`, its message starting with the field path).
 */
import { DEFAULTS, READY_WHEN_ANNOTATION } from '../api/index.ts';
import type { Clock } from '../engine/index.ts';
import { compileReadyWhen, type EvaluatorPool, type ReadyWhen } from '../hooks/index.ts';
import { readyWhenJudge, type ReadyWhenJudge } from './ready-when-judge.ts';

/** A declared child (or attachment) type and its `readyWhen`, if any. */
export interface JudgedType {
  apiVersion: string;
  kind: string;
  readyWhen?: string | undefined;
  /** Where `readyWhen` is written: `spec.childResources[0].readyWhen`. */
  field: string;
}

/** What a controller's judge is built with. */
export interface ControllerJudgeInput {
  evaluators: EvaluatorPool;
  clock: Clock;
  /** `CompositeController/web`: whose fair share of the evaluator processes the expressions take. */
  owner: string;
  types: readonly JudgedType[];
}

/**
 * The judge of one controller generation; `release()` it when the controller stops. Throws
 * `JsonataCompileError` for a type's `readyWhen` that does not compile (having released the others).
 */
export function controllerJudge(input: ControllerJudgeInput): ReadyWhenJudge {
  const { evaluators, clock, owner } = input;
  const compile = (expression: string, source: string): ReadyWhen =>
    compileReadyWhen({ expression, source, timeoutMs: DEFAULTS.jsonataTimeoutMs, clock }, evaluators, owner);
  const compiled: ReadyWhen[] = [];
  const types = [];
  try {
    for (const type of input.types) {
      if (type.readyWhen === undefined) continue;
      const readyWhen = compile(type.readyWhen, type.field);
      compiled.push(readyWhen);
      types.push({ apiVersion: type.apiVersion, kind: type.kind, readyWhen });
    }
  } catch (error) {
    for (const readyWhen of compiled) readyWhen.release();
    throw error;
  }
  return readyWhenJudge({ types, compile: (expression) => compile(expression, `annotation ${READY_WHEN_ANNOTATION}`) });
}
