/**
 * One hook call of `loom render`, and how a failed one is reported: the hook's own message (it names
 * the hook and, for a webhook, the URL), `<hook> hook: invalid response: <field>: <problem>` for an
 * answer that breaks the protocol, and a hint when a webhook is not listening.
 */
import { pino } from 'pino';
import { boundedJoin, HookResponseError, type DecodedResponse, type Hook, type HookVersion, type ResponseUnmarshalMode } from '../api/index.ts';
import { callHook } from '../sync/call-hook.ts';
import { errorChain } from '../engine/index.ts';
import { HookError, HookRetryAfterError, type HookRunner } from '../hooks/index.ts';
import { RenderError } from './render-error.ts';

function refused(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if ((e as { code?: unknown }).code === 'ECONNREFUSED') return true;
  }
  return false;
}

/** The {@link RenderError} for a failed call of `hook` (or a bad answer from it). */
export function hookFailure(hook: string, error: unknown): RenderError {
  if (error instanceof HookResponseError) return new RenderError(`${hook} hook: invalid response: ${error.message}`, { cause: error });
  if (error instanceof HookError || error instanceof HookRetryAfterError) {
    const hint = refused(error) ? '\n  is the hook running? Start it, or pass --hook-module to load it into render' : '';
    return new RenderError(`${error.message}${hint}`, { cause: error });
  }
  return new RenderError(`${hook} hook: ${boundedJoin(errorChain(error), ': ')}`, { cause: error });
}

/** A sync or finalize call: which hook, its spec and runner, how to build the request and read the answer. */
export interface RenderHookCall<T> {
  which: 'sync' | 'finalize';
  spec: Hook | undefined;
  runner: HookRunner | undefined;
  /** `cc.yaml: `: for the message when the hook is not defined. */
  where: string;
  request(version: HookVersion): unknown;
  decode(raw: unknown, mode: ResponseUnmarshalMode): DecodedResponse<T>;
  signal: AbortSignal;
}

/** Fields loom ignores in an answer are logged at debug level by a running loom; render does not say them. */
const QUIET = pino({ level: 'silent' });

/**
 * Calls the hook as loom calls it (sync/call-hook.ts: the request for the hook's version, the answer
 * decoded in its mode); every failure is a {@link RenderError}.
 */
export async function callRenderHook<T>(call: RenderHookCall<T>): Promise<T> {
  const { which, spec, runner } = call;
  if (!spec || !runner) throw new RenderError(`${call.where}spec.hooks.${which}: is not defined, so loom would fail every sync of this parent`);
  try {
    return await callHook({
      which, spec, runner, request: (version) => Promise.resolve(call.request(version)), decode: (raw, mode) => call.decode(raw, mode), logger: QUIET,
    }, call.signal);
  } catch (error) {
    throw hookFailure(which, error);
  }
}
