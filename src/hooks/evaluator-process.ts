/**
 * One JSONata evaluator process as loom sees it: started from the evaluator program with a V8 heap
 * limit, no environment (but an allocator setting) and no permissions it does not need
 * (`evaluator-sandbox.ts`), talking JSON over Node's IPC channel, and able to say why it died.
 * Scheduling calls onto processes is the pool's business (`evaluator-pool.ts`).
 */
import { fork } from 'node:child_process';
import { NO_RESPONSE } from './hook-observer.ts';
import { sandboxArgs, sandboxEnv } from './evaluator-sandbox.ts';
import { readReply, type EvaluatorReply, type EvaluatorRequest, type ExpressionDefinition, type WireFailure } from './evaluator-protocol.ts';

/** How much of a process's stderr is kept: its last words explain a crash. */
const STDERR_TAIL_CHARS = 4_096;

/** How a process ended. */
export interface ProcessEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The end of what it wrote to stderr. */
  lastWords: string;
}

/** What happens to a process, reported to its owner. */
export interface ProcessEvents {
  reply(reply: EvaluatorReply): void;
  exit(end: ProcessEnd): void;
}

/** A running evaluator process. */
export interface EvaluatorProcess {
  /** Its process id; `undefined` when it could not be started. */
  readonly pid: number | undefined;
  send(message: EvaluatorRequest): void;
  /** SIGKILL, by the process's own PID; `exit` follows. */
  kill(): void;
}

/** Starts `entry` with a heap limit of `heapMiB`; `events` hears every valid reply and the exit. */
export function startEvaluatorProcess(entry: URL, heapMiB: number, events: ProcessEvents): EvaluatorProcess {
  const child = fork(entry, [], {
    // Young generation as small as the host's (see the `loom` command, `cli/bin.ts`): one evaluation's
    // garbage is short-lived, and V8's default would let each process hold tens of MiB of it.
    execArgv: [`--max-old-space-size=${heapMiB}`, '--max-semi-space-size=8', ...sandboxArgs(entry)],
    env: sandboxEnv(),
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'json',
  });
  let lastWords = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    lastWords = (lastWords + text).slice(-STDERR_TAIL_CHARS);
  });
  const kill = (): void => void child.kill('SIGKILL');
  let ended = false;
  const end = (code: number | null, signal: NodeJS.Signals | null): void => {
    if (!ended) events.exit({ code, signal, lastWords });
    ended = true;
  };
  // Without a listener, a failed spawn or a broken channel would be an uncaught error in loom. A
  // process that never started may not emit 'exit', so its end is reported here.
  child.on('error', (error) => {
    if (child.pid === undefined) {
      lastWords ||= error.message;
      end(null, null);
    } else kill();
  });
  child.on('message', (message: unknown) => {
    const reply = readReply(message);
    if (reply !== undefined) events.reply(reply);
  });
  child.once('exit', end);
  return {
    pid: child.pid,
    // A process that died has a closed channel; its exit reports what became of its calls.
    send: (message) => void (child.connected && child.send(message, (error) => error && kill())),
    kill,
  };
}

/** Why loom killed a process: its call overran its deadline, or it made room for another controller's call. */
export type StopReason = 'deadline' | 'room';

/**
 * What the end of a process means for the call it was running: a kill at its deadline is a timeout
 * (no answer), a kill to make room says so; anything else is a crash, its reason read from what V8
 * printed as it died.
 */
export function endFailure(definition: ExpressionDefinition, end: ProcessEnd & { stopped: StopReason | undefined; ranMs: number; heapMiB: number }): WireFailure {
  const label = definition.label ?? `${definition.hook} hook`;
  if (end.stopped === 'deadline') {
    return { kind: 'hook', message: `${label}: JSONata evaluation timed out after ${definition.timeoutMs} ms; its evaluator process was stopped`, code: NO_RESPONSE.timeout };
  }
  if (end.stopped === 'room') {
    const message = `${label}: JSONata evaluation stopped after ${end.ranMs} ms of its ${definition.timeoutMs} ms budget, so that another controller's hook could run (every evaluator process was busy)`;
    return { kind: 'hook', message, code: NO_RESPONSE.error };
  }
  return { kind: 'hook', message: crashMessage(label, end), code: '500' };
}

function crashMessage(label: string, end: ProcessEnd & { heapMiB: number }): string {
  if (/heap out of memory|Reached heap limit/i.test(end.lastWords)) return `${label}: JSONata evaluation exceeded the memory limit of ${end.heapMiB} MiB`;
  if (/invalid (size|array length|string length)/i.test(end.lastWords)) return `${label}: JSONata evaluation built a value larger than JavaScript allows`;
  const how = end.signal === null ? `exit code ${end.code}` : `signal ${end.signal}`;
  return `${label}: the JSONata evaluator process ended unexpectedly (${how})`;
}
