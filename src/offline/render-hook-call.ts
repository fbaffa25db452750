/**
 * One hook call of `loom render`, and how a failed one is reported: the hook's own message (it names
 * the hook and, for a webhook, the URL), `<hook> hook: invalid response: <field>: <problem>` for an
 * answer that breaks the protocol, and a hint when a webhook is not listening.
 */
import { HookResponseError, responseModeOf, type DecodedResponse, type Hook, type HookVersion, type ResponseUnmarshalMode } from '../api/index.ts';
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
  return new RenderError(`${hook} hook: ${errorChain(error).join(': ')}`, { cause: error });
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

/** Calls the hook and decodes its answer in the hook's mode; every failure is a {@link RenderError}. */
export async function callRenderHook<T>(call: RenderHookCall<T>): Promise<T> {
  const { which, spec, runner } = call;
  if (!spec || !runner) throw new RenderError(`${call.where}spec.hooks.${which}: is not defined, so loom would fail every sync of this parent`);
  try {
    const raw = await runner.call(call.request(spec.version), call.signal);
    return call.decode(raw, responseModeOf(spec)).response;
  } catch (error) {
    throw hookFailure(which, error);
  }
}
