/**
 * What a JSONata evaluator process does with loom's messages (`evaluator-protocol.ts`): compiles each
 * defined expression once with the in-process runner (`jsonata-runner.ts`, so the expression's view,
 * its time and depth budget and its errors are exactly the same), evaluates calls one at a time, and
 * answers each call exactly once. Kept apart from the process wiring (`src/jsonata-evaluator.ts`) so
 * it can be tested without a process.
 */
import type { HookObserver } from './hook-observer.ts';
import type { HookRunner } from './hook-runner.ts';
import { toWireFailure, type EvaluatorReply, type EvaluatorRequest } from './evaluator-protocol.ts';
import { compileJsonataHook } from './jsonata-runner.ts';
import type { HookClock } from './webhook-runner.ts';

/** What the service runs with. */
export interface EvaluatorServiceOptions {
  clock: HookClock;
  /** Sends one reply to loom. */
  send(reply: EvaluatorReply): void;
  /** A result whose JSON is longer than this many characters is refused, so no answer can flood loom. */
  maxResponseChars: number;
}

/** Handles one message from loom; resolves once its reply (if any) has been sent. Never rejects. */
export type EvaluatorService = (message: EvaluatorRequest) => Promise<void>;

interface Defined {
  runner: HookRunner;
  /** "sync hook": how every message starts. */
  label: string;
  /** What the in-process runner's observer saw for the call that just ended. */
  lastCode: string;
}

/** Runs outside any call's reach: loom bounds a call from outside, by killing the process. */
const NEVER_ABORTED = new AbortController().signal;

function defineRunner(message: Extract<EvaluatorRequest, { type: 'define' }>, clock: HookClock): Defined {
  const label = message.definition.label ?? `${message.definition.hook} hook`;
  const defined: Defined = { runner: { call: () => Promise.reject(new Error('not compiled')) }, label, lastCode: '500' };
  const observer: HookObserver = { requestStarted: () => undefined, requestFinished: ({ code }) => void (defined.lastCode = code) };
  defined.runner = compileJsonataHook({ ...message.definition, clock, observer });
  return defined;
}

/** The size check of a response; JSON.stringify itself throws for a string longer than V8 allows. */
function oversize(response: unknown, maxChars: number): string | undefined {
  let length: number;
  try {
    length = JSON.stringify(response).length;
  } catch {
    return `the JSONata result is larger than ${maxChars} characters of JSON`;
  }
  return length > maxChars ? `the JSONata result is ${length} characters of JSON, more than the ${maxChars} allowed` : undefined;
}

/** A service answering through `options.send`. */
export function createEvaluatorService(options: EvaluatorServiceOptions): EvaluatorService {
  const defined = new Map<number, Defined | Error>();
  const call = async (message: Extract<EvaluatorRequest, { type: 'call' }>): Promise<EvaluatorReply> => {
    const entry = defined.get(message.id);
    if (entry === undefined) return { type: 'failure', call: message.call, failure: toWireFailure(new Error(`expression ${message.id} was never defined`), '500') };
    if (entry instanceof Error) return { type: 'failure', call: message.call, failure: toWireFailure(entry, '500') };
    try {
      const response = (await entry.runner.call(message.request, NEVER_ABORTED)) as Record<string, unknown>;
      const problem = oversize(response, options.maxResponseChars);
      if (problem === undefined) return { type: 'result', call: message.call, response };
      return { type: 'failure', call: message.call, failure: { kind: 'hook', message: `${entry.label}: ${problem}`, code: '500' } };
    } catch (error) {
      return { type: 'failure', call: message.call, failure: toWireFailure(error, entry.lastCode) };
    }
  };
  return async (message) => {
    switch (message.type) {
      case 'define':
        try {
          defined.set(message.id, defineRunner(message, options.clock));
        } catch (error) {
          defined.set(message.id, error instanceof Error ? error : new Error(String(error)));
        }
        return;
      case 'forget':
        defined.delete(message.id);
        return;
      case 'call':
        options.send(await call(message));
    }
  };
}
