/**
 * What a handler is told about the call it answers, besides the request: how long loom will wait for
 * the answer (`X-Loom-Timeout-Ms`, docs/hook-protocol.md "Deadline") and a signal that aborts when
 * that time has passed or loom has hung up, so a handler can stop work nobody will read.
 *
 * Any client can send the header, so its value is read strictly: plain decimal digits that make a
 * safe integer, else the call has no deadline. A value past the largest delay a Node.js timer can
 * wait (2^31-1 ms, about 24.8 days) is clamped to it: a timer given more fires after 1 ms, and
 * `AbortSignal.timeout` throws beyond 2^32-1, which would fail every call.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HOOK_TIMEOUT_HEADER } from '../api/index.ts';

/** The second argument of every handler. */
export interface HookCall {
  /**
   * Milliseconds loom will wait for this answer, counted from when it sent the request, at most
   * 2^31-1 (about 24.8 days, the longest a timer waits); absent when the caller did not say, or said it in another form.
   */
  timeoutMs: number | undefined;
  /**
   * Aborts (reason: a `TimeoutError`) once `timeoutMs` has passed, or (an `AbortError`) when loom
   * closes the connection before the answer. Pass it to `fetch` and the Kubernetes client calls.
   */
  signal: AbortSignal;
}

/** The largest `timeoutMs`: the longest delay a Node.js timer can wait. */
const MAX_CALL_TIMEOUT_MS = 2 ** 31 - 1;

/** Sets and clears the deadline timer of a call; tests pass their own to see both without waiting. */
export interface CallTimers {
  /** Runs `run` after `ms`; returns what {@link CallTimers.clear} takes. */
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const nodeTimers: CallTimers = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** The header's value in milliseconds (clamped), or `undefined` when absent or not plain decimal digits of a safe integer. */
function timeoutOf(request: FastifyRequest): number | undefined {
  const raw = request.headers[HOOK_TIMEOUT_HEADER.toLowerCase()];
  if (typeof raw !== 'string' || !/^\d+$/.test(raw.trim())) return undefined;
  const ms = Number(raw.trim());
  return Number.isSafeInteger(ms) ? Math.min(ms, MAX_CALL_TIMEOUT_MS) : undefined;
}

/**
 * The call of `request`, whose answer goes out through `reply`. Its deadline timer is cleared when
 * the connection closes, answered or not, so no timer outlives the call.
 */
export function hookCallOf(request: FastifyRequest, reply: FastifyReply, timers: CallTimers = nodeTimers): HookCall {
  const timeoutMs = timeoutOf(request);
  const aborter = new AbortController();
  const timeUp = (): void => aborter.abort(new DOMException(`no answer is awaited after ${timeoutMs} ms`, 'TimeoutError'));
  let timer: unknown;
  if (timeoutMs === 0) timeUp();
  else if (timeoutMs !== undefined) timer = timers.set(timeUp, timeoutMs);
  reply.raw.once('close', () => {
    if (timer !== undefined) timers.clear(timer);
    if (!reply.raw.writableFinished) aborter.abort(new DOMException('the caller closed the connection', 'AbortError'));
  });
  return { timeoutMs, signal: aborter.signal };
}
