/**
 * Evaluates JSONata expressions in separate, killable processes, so no expression can harm loom.
 *
 * Why processes. JSONata runs on the event loop, and loom's step budget (`jsonata-budget.ts`) can only
 * act between steps, so one native call (a backtracking regex, `$sum` over ten million numbers, a
 * string of half a gigabyte) holds the event loop for as long as it runs; and V8 ends the whole process
 * when a value outgrows its limits ("Fatal JavaScript invalid size error") or the heap is spent, which
 * nothing in JavaScript can catch. A worker thread shares that fate; a child process does not. Each
 * evaluator is a Node process (`evaluator-process.ts`) with its own V8 heap limit.
 *
 * The bounds, and who keeps them:
 * - time: the evaluator's step budget ends an ordinary runaway at `timeoutMs`; a call still running
 *   `graceMs` later is ended by killing its process — the only bound on a native call. The pool's
 *   watchdog (`evaluator-watchdog.ts`) checks every `graceMs / 2`, so a kill comes within
 *   `timeoutMs + 1.5 × graceMs`;
 * - memory: `heapMiB` per process; a process that dies of it (or of any other crash) fails just the
 *   call it was running, with the reason read from its last words on stderr;
 * - fairness (`evaluator-fairness.ts`, which states the guarantee): an expression (one hook of one
 *   controller) runs on one process at a time; controllers (`owner`) take turns, none holds more
 *   than `processes − 1`, expressions whose last call ended their process share `processes − 1`, and
 *   a call of a controller that holds none waits at most a quarter of its budget before a running
 *   call (a suspect's first) is stopped to make room;
 * - output: an evaluator refuses a result larger than loom accepts from a webhook, so an answer cannot
 *   flood loom's event loop when it is parsed;
 * - restarts: an expression that ends its process twice in a row for one key (parent) rests for that
 *   key, its calls failing at once, for a time that doubles up to 30 s (`evaluator-strikes.ts`), so it
 *   cannot keep a shared process restarting.
 *
 * Speed. An expression's calls are sent to its process up to {@link PIPELINE_DEPTH} ahead, so the
 * process never waits for the IPC round trip between two calls; while another expression waits for a
 * process, no more are sent ahead, and the process passes to it once the ones sent are answered. The
 * process runs them in order, so the oldest unanswered call is the one running: its budget starts when
 * the call before it is answered. When a process dies, that call fails and the calls sent after it,
 * which never started, go back to the front of the queue.
 */
import type { EvaluatorReply, ExpressionDefinition, WireFailure } from './evaluator-protocol.ts';
import { whoseTurn, type Running } from './evaluator-fairness.ts';
import { ownerBook, turnLine, type SharedOwner } from './evaluator-turns.ts';
import { endFailure, startEvaluatorProcess, type EvaluatorProcess, type ProcessEnd, type StopReason } from './evaluator-process.ts';
import { strikeBook, type StrikeBook } from './evaluator-strikes.ts';
import { evaluatorWatchdog } from './evaluator-watchdog.ts';

/** The evaluator's outcome of one call. */
export type EvaluatorAnswer = { response: Record<string, unknown> } | { failure: WireFailure };

/** Calls of one expression sent to its process ahead of their turn. */
export const PIPELINE_DEPTH = 8;

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
  /** Starts one evaluator process; tests pass fakes. Default: {@link startEvaluatorProcess}. */
  start?: typeof startEvaluatorProcess | undefined;
}

/** One expression, compiled in every evaluator that runs it. */
export interface PooledExpression {
  /**
   * Evaluates with `request` as input once a process is free. Resolves to the answer, also for a
   * failure (the expression's error, a timeout, a crash); rejects only when `signal` aborts first or
   * the pool or expression is closed. `key` says whose input it is (the parent), for the strike book.
   */
  evaluate(request: unknown, signal: AbortSignal, key?: string): Promise<EvaluatorAnswer>;
  /** Drops the expression everywhere; its waiting calls reject. Idempotent. */
  forget(): void;
}

/** The processes that evaluate every JSONata hook of one loom. */
export interface EvaluatorPool {
  /**
   * Defines an expression of controller `owner` (e.g. `CompositeController/web`), whose expressions
   * share one fair share of the processes; without one, the expression is a controller of its own.
   */
  define(definition: ExpressionDefinition, owner?: string): PooledExpression;
  /** Kills every process and rejects every waiting and running call. Idempotent. */
  close(): void;
}

/** A call waiting for, or sent to, a process. */
interface Call {
  expression: Expression;
  request: unknown;
  /** Whose input this is (the parent), for the strike book. */
  key: string;
  /** When it began to wait. */
  since: number;
  settle(answer: EvaluatorAnswer): void;
  fail(error: Error): void;
}

interface Expression {
  id: number;
  definition: ExpressionDefinition;
  owner: SharedOwner;
  /** Its last call ended its process (see `evaluator-fairness.ts`). */
  suspect: boolean;
  waiting: Call[];
  /** The process its calls are on, while any are. */
  on: Evaluator | undefined;
  forgotten: boolean;
  strikes: StrikeBook;
}

interface Sent {
  call: Call;
  number: number;
}

interface Evaluator {
  process: EvaluatorProcess;
  ready: boolean;
  defined: Set<number>;
  /** Calls sent and not answered, oldest (the one running) first; all of one expression. */
  sent: Sent[];
  /** When the oldest sent call started running. */
  startedAt: number;
  /** Set when the watchdog killed the process: its call overran the deadline, or made room. */
  stopped: StopReason | undefined;
}

/** The error of a call of an expression that was forgotten: `the sync hook's expression …`, or its own label's. */
function noLongerInUse(definition: ExpressionDefinition): Error {
  return new Error(`${definition.label === undefined ? `the ${definition.hook} hook's expression` : definition.label} is no longer in use`);
}

/** A pool with no process yet; see the module comment. */
export function createEvaluatorPool(options: EvaluatorPoolOptions): EvaluatorPool {
  const most = Math.max(1, Math.floor(options.processes));
  const evaluators = new Set<Evaluator>();
  /** Expressions with a waiting call and no process, in the order they became so. */
  const turns = turnLine<Expression>();
  const owners = ownerBook();
  let closed = false;
  let nextId = 0;
  let nextCall = 0;

  /** The busy processes, as the fairness rules see them. */
  const running = (): Running[] => [...evaluators].flatMap((e) => {
    const sent = e.sent[0];
    return sent === undefined ? [] : [{ owner: sent.call.expression.owner, suspect: sent.call.expression.suspect, since: e.startedAt }];
  });
  const watchdog = evaluatorWatchdog({
    clock: options.clock, graceMs: options.graceMs, processes: most, evaluators, line: turns, running, closed: () => closed,
  });

  /** Sends `expression`'s waiting calls to `evaluator`, as far ahead as allowed. */
  const sendAhead = (evaluator: Evaluator, expression: Expression): void => {
    if (!evaluator.defined.has(expression.id)) {
      evaluator.process.send({ type: 'define', id: expression.id, definition: expression.definition });
      evaluator.defined.add(expression.id);
    }
    const limit = turns.length > 0 ? 1 : PIPELINE_DEPTH;
    while (evaluator.sent.length < limit && expression.waiting.length > 0) {
      const sent = { call: expression.waiting.shift()!, number: nextCall++ };
      if (evaluator.sent.length === 0) evaluator.startedAt = options.clock.now();
      evaluator.sent.push(sent);
      evaluator.process.send({ type: 'call', call: sent.number, id: expression.id, request: sent.call.request });
    }
    watchdog.watch();
  };

  function dispatch(): void {
    if (closed) return;
    for (const evaluator of evaluators) {
      const current = evaluator.sent[0]?.call.expression;
      if (current !== undefined) sendAhead(evaluator, current);
      else if (evaluator.ready && evaluator.stopped === undefined) {
        const expression = turns.next(running(), most);
        if (expression === undefined) continue;
        expression.on = evaluator;
        sendAhead(evaluator, expression);
      }
    }
    spawnIfWanted();
  }

  /** Starts a process when one may be started and more expressions may run than are starting. */
  const spawnIfWanted = (): void => {
    const starting = [...evaluators].filter((e) => !e.ready).length;
    if (evaluators.size < most && turns.length > starting && whoseTurn(turns.waiting(), running(), most) !== undefined) spawn();
  };

  /** The oldest call was answered: the next one starts, or the process is free for whoever's turn it is. */
  const answered = (evaluator: Evaluator, answer: EvaluatorAnswer): void => {
    const done = evaluator.sent.shift()!;
    evaluator.startedAt = options.clock.now();
    const { expression } = done.call;
    expression.strikes.clear(done.call.key);
    expression.suspect = false;
    if (evaluator.sent.length === 0) {
      expression.on = undefined;
      turns.join(expression);
    }
    done.call.settle(answer);
  };

  const onExit = (evaluator: Evaluator, end: ProcessEnd): void => {
    evaluators.delete(evaluator);
    const [running, ...unstarted] = evaluator.sent;
    if (running !== undefined) {
      const { expression } = running.call;
      const now = options.clock.now();
      const failure = endFailure(expression.definition, { ...end, stopped: evaluator.stopped, ranMs: now - evaluator.startedAt, heapMiB: options.heapMiB });
      // Making room was not the expression's doing: no strike, and its standing stays as it was.
      if (evaluator.stopped !== 'room') {
        expression.strikes.strike(running.call.key, failure, now);
        expression.suspect = true;
      }
      expression.on = undefined;
      running.call.settle({ failure });
      // The calls sent after it never started: they wait again, but those for a key that now rests fail.
      const again = unstarted.map((s) => s.call).filter((call) => {
        const rest = expression.strikes.resting(call.key, now);
        if (rest) call.settle({ failure: rest });
        return rest === undefined;
      });
      expression.waiting.unshift(...again);
      turns.join(expression);
    } else if (!evaluator.ready) {
      failFirstWaiting(new Error(`could not start a JSONata evaluator process (${end.signal ?? `exit code ${end.code}`}): ${end.lastWords.trim() || 'it printed nothing'}`));
    }
    dispatch();
  };

  /** A process that never started fails the call that would have run first, so a broken set-up fails calls instead of hanging them. */
  const failFirstWaiting = (error: Error): void => {
    const expression = turns.first();
    const call = expression?.waiting.shift();
    if (expression === undefined || call === undefined || closed) return;
    if (expression.waiting.length === 0) turns.leave(expression);
    call.fail(error);
  };

  const onReply = (evaluator: Evaluator, reply: EvaluatorReply): void => {
    if (reply.type === 'ready') evaluator.ready = true;
    else if (evaluator.sent[0]?.number === reply.call) answered(evaluator, reply.type === 'result' ? { response: reply.response } : { failure: reply.failure });
    dispatch();
  };

  function spawn(): void {
    const evaluator: Evaluator = {
      ready: false, defined: new Set(), sent: [], startedAt: 0, stopped: undefined,
      process: (options.start ?? startEvaluatorProcess)(options.entry, options.heapMiB, {
        reply: (reply) => onReply(evaluator, reply),
        exit: (end) => onExit(evaluator, end),
      }),
    };
    evaluators.add(evaluator);
  }

  const enqueue = (expression: Expression, request: unknown, key: string, signal: AbortSignal): Promise<EvaluatorAnswer> => {
    if (closed) return Promise.reject(new Error('the JSONata evaluators have stopped'));
    if (expression.forgotten) return Promise.reject(noLongerInUse(expression.definition));
    const rest = expression.strikes.resting(key, options.clock.now());
    if (rest) return Promise.resolve({ failure: rest });
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<EvaluatorAnswer>((resolve, reject) => {
      const onAbort = (): void => {
        // Waiting: it leaves the queue. Sent: the caller stops waiting, but the process still runs it
        // (or is killed at its deadline) before the expression gets another process.
        const index = expression.waiting.indexOf(call);
        if (index >= 0) expression.waiting.splice(index, 1);
        if (expression.waiting.length === 0) turns.leave(expression);
        reject(signal.reason as Error);
      };
      const call: Call = {
        expression, request, key, since: options.clock.now(),
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
      turns.join(expression);
      dispatch();
    });
  };

  return {
    define(definition, name = `expression ${nextId}`) {
      const owner = owners.join(name);
      const expression: Expression = { id: nextId++, definition, owner, suspect: false, waiting: [], on: undefined, forgotten: false, strikes: strikeBook() };
      return {
        evaluate: (request, signal, key = '') => enqueue(expression, request, key, signal),
        forget() {
          if (expression.forgotten) return;
          expression.forgotten = true;
          owners.leave(owner);
          for (const call of expression.waiting.splice(0)) call.fail(noLongerInUse(definition));
          turns.leave(expression);
          for (const evaluator of evaluators) {
            if (evaluator.defined.delete(expression.id)) evaluator.process.send({ type: 'forget', id: expression.id });
          }
        },
      };
    },
    close() {
      if (closed) return;
      closed = true;
      const stopped = new Error('the JSONata evaluators have stopped');
      for (const expression of turns.drain()) for (const call of expression.waiting.splice(0)) call.fail(stopped);
      for (const evaluator of evaluators) {
        for (const sent of evaluator.sent.splice(0)) {
          sent.call.fail(stopped);
          for (const call of sent.call.expression.waiting.splice(0)) call.fail(stopped);
        }
        evaluator.process.kill();
      }
    },
  };
}
