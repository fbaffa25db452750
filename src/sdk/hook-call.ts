/**
 * What a handler is told about the call it answers, besides the request: how long loom will wait for
 * the answer (`X-Loom-Timeout-Ms`, docs/hook-protocol.md "Deadline") and a signal that aborts when
 * that time has passed or loom has hung up, so a handler can stop work nobody will read.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HOOK_TIMEOUT_HEADER } from '../api/index.ts';

/** The second argument of every handler. */
export interface HookCall {
  /** Milliseconds loom will wait for this answer, counted from when it sent the request; absent when the caller did not say. */
  timeoutMs: number | undefined;
  /**
   * Aborts (reason: a `TimeoutError`) once `timeoutMs` has passed, or (an `AbortError`) when loom
   * closes the connection before the answer. Pass it to `fetch` and the Kubernetes client calls.
   */
  signal: AbortSignal;
}

/** The header's value in milliseconds, or `undefined` when absent or not a non-negative number. */
function timeoutOf(request: FastifyRequest): number | undefined {
  const raw = request.headers[HOOK_TIMEOUT_HEADER.toLowerCase()];
  if (typeof raw !== 'string' || !/^\d+$/.test(raw.trim())) return undefined;
  return Number(raw.trim());
}

/** Aborts when the connection closes before the reply was sent. */
function hangUp(reply: FastifyReply): AbortSignal {
  const hungUp = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) hungUp.abort(new DOMException('the caller closed the connection', 'AbortError'));
  });
  return hungUp.signal;
}

/** The call of `request`, whose answer goes out through `reply`. */
export function hookCallOf(request: FastifyRequest, reply: FastifyReply): HookCall {
  const timeoutMs = timeoutOf(request);
  const signals = [hangUp(reply)];
  if (timeoutMs !== undefined) {
    signals.push(timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : AbortSignal.abort(new DOMException('no time left', 'TimeoutError')));
  }
  return { timeoutMs, signal: AbortSignal.any(signals) };
}
