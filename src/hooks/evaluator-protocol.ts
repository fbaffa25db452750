/**
 * The messages between loom and a JSONata evaluator process (`evaluator-pool.ts` on loom's side,
 * `evaluator-service.ts` in the process), and how a failure crosses between them. The channel is
 * Node's IPC with JSON serialisation, so every message is plain JSON: an error travels as its class
 * name and fields, and is rebuilt as the same class on loom's side.
 */
import { HookError } from './hook-error.ts';
import type { HookKind } from './hook-runner.ts';
import { JsonataEvaluationError } from './jsonata-errors.ts';

/** What an evaluator needs to compile one expression; sent once per process, before its first call. */
export interface ExpressionDefinition {
  expression: string;
  hook: HookKind;
  timeoutMs: number;
  maxDepth?: number | undefined;
}

/** loom → evaluator. */
export type EvaluatorRequest =
  | { type: 'define'; id: number; definition: ExpressionDefinition }
  | { type: 'forget'; id: number }
  | { type: 'call'; call: number; id: number; request: unknown };

/** A failed evaluation as it crosses the channel. `code` is what the hook observer counts it as. */
export interface WireFailure {
  /** `JsonataEvaluationError` keeps JSONata's code and position; anything else is a plain `HookError`. */
  kind: 'evaluation' | 'hook';
  message: string;
  jsonataCode?: string | undefined;
  position?: number | undefined;
  code: string;
}

/** evaluator → loom: `ready` once, then exactly one answer per call. */
export type EvaluatorReply =
  | { type: 'ready' }
  | { type: 'result'; call: number; response: Record<string, unknown> }
  | { type: 'failure'; call: number; failure: WireFailure };

/** The wire form of `error`, which a runner threw, counted by the observer as `code`. */
export function toWireFailure(error: unknown, code: string): WireFailure {
  if (error instanceof JsonataEvaluationError) {
    return { kind: 'evaluation', message: error.message, jsonataCode: error.code, position: error.position, code };
  }
  return { kind: 'hook', message: error instanceof Error ? error.message : String(error), code };
}

/** The error a {@link WireFailure} stands for, as the in-process runner would have thrown it. */
export function fromWireFailure(failure: WireFailure): HookError {
  if (failure.kind === 'evaluation') {
    return new JsonataEvaluationError(failure.message, { code: failure.jsonataCode, position: failure.position });
  }
  return new HookError(failure.message);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readFailure(failure: Record<string, unknown>): WireFailure | undefined {
  if (typeof failure.message !== 'string' || typeof failure.code !== 'string') return undefined;
  return {
    kind: failure.kind === 'evaluation' ? 'evaluation' : 'hook',
    message: failure.message,
    jsonataCode: typeof failure.jsonataCode === 'string' ? failure.jsonataCode : undefined,
    position: typeof failure.position === 'number' ? failure.position : undefined,
    code: failure.code,
  };
}

/**
 * The reply `message` is, or `undefined` for anything else. An evaluator runs only loom's code, but
 * its answers are still checked before use: a broken process must not be able to break loom.
 */
export function readReply(message: unknown): EvaluatorReply | undefined {
  if (!isRecord(message)) return undefined;
  if (message.type === 'ready') return { type: 'ready' };
  if (typeof message.call !== 'number') return undefined;
  if (message.type === 'result' && isRecord(message.response)) return { type: 'result', call: message.call, response: message.response };
  const failure = message.type === 'failure' && isRecord(message.failure) ? readFailure(message.failure) : undefined;
  return failure && { type: 'failure', call: message.call, failure };
}
