/**
 * Evaluates JSONata expressions in separate, killable processes, so no expression can harm loom.
 *
 * Why processes. JSONata runs on the event loop, and loom's step budget (`jsonata-budget.ts`) can only
 * act between steps, so one native call (a backtracking regex, `$sum` over ten million numbers, a
 * string of half a gigabyte) holds the event loop for as long as it runs; and V8 ends the whole process
 * when a value outgrows its limits ("Fatal JavaScript invalid size error") or the heap is spent, which
 * nothing in JavaScript can catch. A worker thread shares that fate; a child process does not. Each
 * evaluator is a Node process (`src/jsonata-evaluator.ts`) with its own V8 heap limit.
 *
 * The bounds, and who keeps them:
 * - time: the evaluator's step budget ends an ordinary runaway at `timeoutMs`; a call that has not
 *   answered `graceMs` later is ended here by killing its process (SIGKILL) — the only bound on native
 *   calls. A replacement starts when the next call needs one;
 * - memory: `heapMiB` per process; a process that dies of it (or of any other crash) fails just the
 *   call it was running, with the reason read from its last words on stderr;
 * - fairness: each expression (one hook of one controller) has at most one call running at a time, and
 *   expressions waiting for a process take turns. So a runaway expression occupies one process at most,
 *   and with `processes` ≥ 2 every other expression keeps a process to run on;
 * - output: an evaluator refuses a result larger than loom accepts from a webhook, so an answer cannot
 *   flood loom's event loop when it is parsed.
 * A call's budget starts when its process receives it, not while it waits for a process.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { NO_RESPONSE_CODE } from './hook-observer.ts';
import { readReply, type EvaluatorReply, type EvaluatorRequest, type ExpressionDefinition, type WireFailure } from './evaluator-protocol.ts';

/** The evaluator's outcome of one call. */
export type EvaluatorAnswer = { response: Record<string, unknown> } | { failure: WireFailure };

/** Reads time and waits (the engine's `Clock` fits). */
export interface PoolClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** How the pool runs its processes. */
export interface EvaluatorPoolOptions {
  /** The evaluator program: `src/jsonata-evaluator.ts`. */
  entry: URL;
  /** Most evaluator processes at a time; at least 1. Processes start when calls need them. */
  processes: number;
  /** V8 heap limit of each process (`--max-old-space-size`), in MiB. */
  heapMiB: number;
  /** How long past its budget a call may run before its process is killed. */
  graceMs: number;
  clock: PoolClock;
}

/** One expression, compiled in every evaluator that runs it. */
export interface PooledExpression {
  /**
   * Evaluates with `request` as input once a process is free. Resolves to the answer, also for a
   * failure (the expression's error, a timeout, a crash); rejects only when `signal` aborts first or
   * the pool or expression is closed.
   */
  evaluate(request: unknown, signal: AbortSignal): Promise<EvaluatorAnswer>;
  /** Drops the expression everywhere; its waiting calls reject. Idempotent. */
  forget(): void;
}

/** The processes that evaluate every JSONata hook of one loom. */
export interface EvaluatorPool {
  define(definition: ExpressionDefinition): PooledExpression;
  /** Kills every process and rejects every waiting and running call. Idempotent. */
  close(): void;
}

/** A call waiting for, or running on, a process. */
interface Call {
  expression: Expression;
  request: unknown;
  settle(answer: EvaluatorAnswer): void;
  fail(error: Error): void;
}

interface Expression {
  id: number;
  definition: ExpressionDefinition;
  waiting: Call[];
  running: boolean;
  forgotten: boolean;
}

interface Running {
  call: Call;
  number: number;
  /** Ends the deadline timer. */
  deadline: AbortController;
  /** Set when the pool killed the process for overrunning the deadline. */
  timedOut: boolean;
}

interface Evaluator {
  process: ChildProcess;
  ready: boolean;
  defined: Set<number>;
  running: Running | undefined;
  /** The end of what the process wrote to stderr: its last words explain a crash. */
  stderrTail: string;
}

/** How much of an evaluator's stderr is kept to explain its end. */
const STDERR_TAIL_CHARS = 4_096;

/** What the end of a process means for the call it was running, from what V8 printed as it died. */
function crashMessage(label: string, heapMiB: number, lastWords: string, end: { code: number | null; signal: NodeJS.Signals | null }): string {
  const words = lastWords;
  const { code, signal } = end;
  if (/heap out of memory|Reached heap limit/i.test(words)) return `${label}: JSONata evaluation exceeded the memory limit of ${heapMiB} MiB`;
  if (/invalid (size|array length|string length)/i.test(words)) return `${label}: JSONata evaluation built a value larger than JavaScript allows`;
  const how = signal === null ? `exit code ${code}` : `signal ${signal}`;
  return `${label}: the JSONata evaluator process ended unexpectedly (${how})`;
}

/** A pool with no process yet; see the module comment. */
export function createEvaluatorPool(options: EvaluatorPoolOptions): EvaluatorPool {
  const processes = Math.max(1, Math.floor(options.processes));
  const evaluators = new Set<Evaluator>();
  /** Expressions with a waiting call and none running, in the order they became so: whose turn it is. */
  const turns: Expression[] = [];
  let closed = false;
  let nextId = 0;
  let nextCall = 0;

  const send = (evaluator: Evaluator, message: EvaluatorRequest): void => {
    // A process that died has a closed channel; its exit handler deals with the call.
    if (evaluator.process.connected) evaluator.process.send(message, (error) => error && evaluator.process.kill('SIGKILL'));
  };

  const enqueueTurn = (expression: Expression): void => {
    if (!expression.running && expression.waiting.length > 0 && !turns.includes(expression)) turns.push(expression);
  };

  const finish = (evaluator: Evaluator, answer: EvaluatorAnswer): void => {
    const running = evaluator.running;
    if (running === undefined) return;
    evaluator.running = undefined;
    running.deadline.abort();
    running.call.expression.running = false;
    running.call.settle(answer);
    enqueueTurn(running.call.expression);
  };

  const start = (evaluator: Evaluator, call: Call): void => {
    const { expression } = call;
    expression.running = true;
    if (!evaluator.defined.has(expression.id)) {
      send(evaluator, { type: 'define', id: expression.id, definition: expression.definition });
      evaluator.defined.add(expression.id);
    }
    const running: Running = { call, number: nextCall++, deadline: new AbortController(), timedOut: false };
    evaluator.running = running;
    send(evaluator, { type: 'call', call: running.number, id: expression.id, request: call.request });
    options.clock.sleep(expression.definition.timeoutMs + options.graceMs, running.deadline.signal).then(() => {
      running.timedOut = true;
      evaluator.process.kill('SIGKILL');
    }, () => undefined);
  };

  const onExit = (evaluator: Evaluator, code: number | null, signal: NodeJS.Signals | null): void => {
    evaluators.delete(evaluator);
    const running = evaluator.running;
    if (running !== undefined) {
      const { definition } = running.call.expression;
      const label = `${definition.hook} hook`;
      finish(evaluator, {
        failure: running.timedOut
          ? { kind: 'hook', message: `${label}: JSONata evaluation timed out after ${definition.timeoutMs} ms; its evaluator process was stopped`, code: NO_RESPONSE_CODE }
          : { kind: 'hook', message: crashMessage(label, options.heapMiB, evaluator.stderrTail, { code, signal }), code: '500' },
      });
    } else if (!evaluator.ready && !closed) {
      // It never started: fail the call that would have run first, so a broken set-up fails calls instead of hanging them.
      const call = turns[0]?.waiting.shift();
      if (call !== undefined) {
        if (turns[0]!.waiting.length === 0) turns.shift();
        call.fail(new Error(`could not start a JSONata evaluator process (${signal ?? `exit code ${code}`}): ${evaluator.stderrTail.trim() || 'it printed nothing'}`));
      }
    }
    dispatch();
  };

  const spawn = (): void => {
    const child = fork(options.entry, [], {
      execArgv: [`--max-old-space-size=${options.heapMiB}`],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
    const evaluator: Evaluator = { process: child, ready: false, defined: new Set(), running: undefined, stderrTail: '' };
    evaluators.add(evaluator);
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      evaluator.stderrTail = (evaluator.stderrTail + text).slice(-STDERR_TAIL_CHARS);
    });
    // Without a listener, a failed spawn or a broken channel would be an uncaught error in loom.
    child.on('error', () => child.kill('SIGKILL'));
    child.on('message', (message: unknown) => onReply(evaluator, readReply(message)));
    child.once('exit', (code, signal) => onExit(evaluator, code, signal));
  };

  const onReply = (evaluator: Evaluator, reply: EvaluatorReply | undefined): void => {
    if (reply === undefined) return;
    if (reply.type === 'ready') {
      evaluator.ready = true;
      dispatch();
      return;
    }
    if (evaluator.running?.number !== reply.call) return;
    finish(evaluator, reply.type === 'result' ? { response: reply.response } : { failure: reply.failure });
    dispatch();
  };

  function dispatch(): void {
    if (closed) return;
    for (const evaluator of evaluators) {
      if (turns.length === 0) return;
      if (!evaluator.ready || evaluator.running !== undefined) continue;
      const expression = turns.shift()!;
      start(evaluator, expression.waiting.shift()!);
    }
    const starting = [...evaluators].filter((e) => !e.ready).length;
    if (turns.length > starting && evaluators.size < processes) spawn();
  }

  const enqueue = (expression: Expression, request: unknown, signal: AbortSignal): Promise<EvaluatorAnswer> => {
    if (closed) return Promise.reject(new Error('the JSONata evaluators have stopped'));
    if (expression.forgotten) return Promise.reject(new Error(`the ${expression.definition.hook} hook's expression is no longer in use`));
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<EvaluatorAnswer>((resolve, reject) => {
      const onAbort = (): void => {
        // Waiting: it leaves the queue. Running: the caller stops waiting, but the process finishes (or
        // is killed at the deadline) before the expression runs again, so a runaway cannot pile up.
        const index = expression.waiting.indexOf(call);
        if (index >= 0) expression.waiting.splice(index, 1);
        if (expression.waiting.length === 0 && turns.includes(expression)) turns.splice(turns.indexOf(expression), 1);
        reject(signal.reason as Error);
      };
      const call: Call = {
        expression, request,
        settle: (answer) => {
          signal.removeEventListener('abort', onAbort);
          resolve(answer);
        },
        fail: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      expression.waiting.push(call);
      enqueueTurn(expression);
      dispatch();
    });
  };

  return {
    define(definition) {
      const expression: Expression = { id: nextId++, definition, waiting: [], running: false, forgotten: false };
      return {
        evaluate: (request, signal) => enqueue(expression, request, signal),
        forget() {
          expression.forgotten = true;
          for (const call of expression.waiting.splice(0)) call.fail(new Error(`the ${definition.hook} hook's expression is no longer in use`));
          if (turns.includes(expression)) turns.splice(turns.indexOf(expression), 1);
          for (const evaluator of evaluators) {
            if (evaluator.defined.delete(expression.id)) send(evaluator, { type: 'forget', id: expression.id });
          }
        },
      };
    },
    close() {
      if (closed) return;
      closed = true;
      const stopped = new Error('the JSONata evaluators have stopped');
      for (const expression of turns.splice(0)) for (const call of expression.waiting.splice(0)) call.fail(stopped);
      for (const evaluator of evaluators) {
        evaluator.running?.deadline.abort();
        evaluator.running?.call.fail(stopped);
        evaluator.running = undefined;
        evaluator.process.kill('SIGKILL');
      }
    },
  };
}
