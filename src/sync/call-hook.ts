/**
 * One call of a controller's sync or finalize hook, the same for both controller kinds: the hook must
 * be defined, the request is built for its version, and the answer is decoded in its mode (fields
 * loom ignores are logged, not fatal, in loose mode).
 */
import type { Logger } from 'pino';
import { responseModeOf, type DecodedResponse, type Hook, type HookVersion, type ResponseUnmarshalMode } from '../api/index.ts';
import { tooManyChildren } from '../core/index.ts';
import { TerminalError } from '../engine/index.ts';
import type { HookRunner } from '../hooks/index.ts';

/** What to call and how to read the answer. */
export interface HookCall<T> {
  which: 'sync' | 'finalize';
  spec: Hook | undefined;
  runner: HookRunner | undefined;
  /** Builds the request for the hook's version. */
  request(version: HookVersion): Promise<unknown>;
  decode(raw: unknown, mode: ResponseUnmarshalMode): DecodedResponse<T>;
  /** The answer's list of desired objects (`children`, `attachments`) and `--max-children-per-parent`. */
  limit?: { field: string; max: number | undefined } | undefined;
  logger: Logger;
}

/** An answer with more desired objects than allowed is refused before decoding, which costs ~5 µs each on the event loop. */
function checkCount(raw: unknown, limit: HookCall<unknown>['limit']): void {
  if (!limit || typeof raw !== 'object' || raw === null) return;
  const list = (raw as Record<string, unknown>)[limit.field];
  const tooMany = Array.isArray(list) ? tooManyChildren(list.length, limit.max) : undefined;
  if (tooMany !== undefined) throw new Error(`the hook's ${limit.field} are invalid: ${tooMany}`);
}

/** Calls the hook and returns its decoded answer; a hook that is not defined is a terminal error. */
export async function callHook<T>(call: HookCall<T>, signal: AbortSignal): Promise<T> {
  const { which, spec, runner } = call;
  if (!spec || !runner) throw new TerminalError(`the ${which} hook is not defined`);
  const raw = await runner.call(await call.request(spec.version), signal);
  checkCount(raw, call.limit);
  const { response, ignoredFields } = call.decode(raw, responseModeOf(spec));
  if (ignoredFields.length > 0) call.logger.debug({ ignoredFields }, `${which} hook response had fields loom ignores`);
  return response;
}
