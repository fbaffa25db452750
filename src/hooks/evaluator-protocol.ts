/**
 * The messages between loom and a JSONata evaluator process (`evaluator-pool.ts` on loom's side,
 * `evaluator-service.ts` in the process), and how a failure crosses between them. The channel is
 * Node's IPC with JSON serialisation, so every message is plain JSON: an error travels as its class
 * name and fields, and is rebuilt as the same class on loom's side. Its message is cut to
 * `MAX_MESSAGE_CHARS` (`api/bounded-text.ts`) on both sides: before it is sent, so a huge message never
 * crosses, and on receipt, as loom does not trust what a process answers.
 */
// Straight to the module: an evaluator process loads this file, and `api/index.ts` is all of `api/`.
import { boundedText } from '../api/bounded-text.ts';
import { HookError } from './hook-error.ts';
import type { HookKind } from './hook-runner.ts';
import { JsonataEvaluationError } from './jsonata-errors.ts';

/** What an evaluator needs to compile one expression; sent once per process, before its first call. */
export interface ExpressionDefinition {
  expression: string;
  hook: HookKind;
  timeoutMs: number;
  maxDepth?: number | undefined;
  /** A hook response (default) or any value (see `JsonataHookOptions.result`). */
  result?: 'response' | 'value' | undefined;
  /** How its messages start; default `<hook> hook`. */
  label?: string | undefined;
}

/** loom → evaluator. */
export type EvaluatorRequest =
  | { type: 'define'; id: number; definition: ExpressionDefinition }
  | { type: 'forget'; id: number }
  | { type: 'call'; call: number; id: number; request: unknown };

/** A failed evaluation as it crosses the channel. `code` is what the hook observer counts it as. */
export interface WireFailure {
  /** `JsonataEvaluationError` keeps JSONata's code, position, line and column; anything else is a plain `HookError`. */
  kind: 'evaluation' | 'hook';
  message: string;
  jsonataCode?: string | undefined;
  position?: number | undefined;
  line?: number | undefined;
  column?: number | undefined;
  code: string;
}

/** evaluator → loom: `ready` once, then exactly one answer per call. */
export type EvaluatorReply =
  | { type: 'ready' }
  | { type: 'result'; call: number; response: Record<string, unknown> }
  | { type: 'failure'; call: number; failure: WireFailure };

/** The wire form of `error`, which a runner threw, counted by the observer as `code`; its message cut. */
export function toWireFailure(error: unknown, code: string): WireFailure {
  if (error instanceof JsonataEvaluationError) {
    const { code: jsonataCode, position, line, column } = error;
    return { kind: 'evaluation', message: boundedText(error.message), jsonataCode, position, line, column, code };
  }
  return { kind: 'hook', message: boundedText(error instanceof Error ? error.message : String(error)), code };
}

/** The error a {@link WireFailure} stands for, as the in-process runner would have thrown it; its message cut. */
export function fromWireFailure(failure: WireFailure): HookError {
  const message = boundedText(failure.message);
  if (failure.kind === 'evaluation') {
    return new JsonataEvaluationError(message, { code: failure.jsonataCode, position: failure.position, line: failure.line, column: failure.column });
  }
  return new HookError(message);
}

/** Longer than any code JSONata (`D3137`) or the hook observer (`500`, `timeout`) gives. */
const MAX_CODE_CHARS = 32;

/** `value` when it is a string short enough to be a code. */
function codeOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= MAX_CODE_CHARS ? value : undefined;
}

/** `value` when it is a 1-based line or column. */
function placeNumber(value: unknown): number | undefined {
  return Number.isSafeInteger(value) && (value as number) > 0 ? (value as number) : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readFailure(failure: Record<string, unknown>): WireFailure | undefined {
  if (typeof failure.message !== 'string' || typeof failure.code !== 'string') return undefined;
  return {
    kind: failure.kind === 'evaluation' ? 'evaluation' : 'hook',
    message: boundedText(failure.message),
    jsonataCode: codeOf(failure.jsonataCode),
    position: typeof failure.position === 'number' ? failure.position : undefined,
    line: placeNumber(failure.line),
    column: placeNumber(failure.column),
    // The code is a metric label: one that is not a code is counted as the failure it is.
    code: codeOf(failure.code) ?? '500',
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
