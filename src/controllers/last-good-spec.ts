/**
 * A running controller whose object changed (a new spec, or a ConfigMap-held expression) is stopped
 * only for a spec that can start: one that parses, whose types discovery serves, and whose hooks and
 * expressions build. Otherwise it keeps running the spec it has (its parents go on being synced), and
 * the object says why with `Ready=False` and which generation still runs.
 */
import { boundedJoin, type FieldProblem, type KubeObject, type ParseResult } from '../api/index.ts';
import { errorChain, TerminalError } from '../engine/index.ts';
import { JsonataCompileError } from '../hooks/index.ts';
import { notReady, notReadyReason } from './controller-status.ts';
import type { ExpressionSources } from './expression-sources.ts';
import { ResourceNotFoundError, type Host } from './host.ts';
import { ReferenceNotAllowedError } from './reference-policy.ts';

/** The parser's problems as one line, each with its field path. */
export function specProblems(problems: readonly FieldProblem[]): string {
  return problems.map((p) => `${p.path}: ${p.message}`).join('; ');
}

/** A changed controller object whose controller runs an older version of it. */
export interface ChangedController<C> {
  host: Host;
  kind: { kind: string; check(host: Host, controller: C, sources: ExpressionSources): Promise<void> };
  sources: ExpressionSources;
  name: string;
  obj: KubeObject;
  parsed: ParseResult<C>;
  /** The generation the running controller was started with. */
  generation: number | undefined;
}

/** Why the new version cannot start, or `undefined` when it can. */
async function whyNot<C>(changed: ChangedController<C>): Promise<{ reason: string; message: string; cause: unknown } | undefined> {
  const { parsed } = changed;
  if (!parsed.ok) return { reason: 'InvalidSpec', message: specProblems(parsed.problems), cause: undefined };
  try {
    await changed.kind.check(changed.host, parsed.value, changed.sources);
    return undefined;
  } catch (err) {
    return { reason: notReadyReason(err), message: boundedJoin(errorChain(err), ': '), cause: err };
  }
}

/**
 * Resolves when the changed version can start (the caller then stops the running controller for
 * it). Otherwise reports it and throws: a TerminalError for a version that cannot become right by
 * itself (it waits for the next change of the object or its ConfigMap, which queues it again), the
 * error itself for one that may (a type discovery does not serve yet: retried with backoff).
 */
export async function keepLastGood<C>(changed: ChangedController<C>): Promise<void> {
  const why = await whyNot(changed);
  if (why === undefined) return;
  const message = `${why.message}; the controller keeps running its last good spec (generation ${changed.generation ?? 0})`;
  await notReady(changed.host, changed.obj, { reason: why.reason, message });
  if (why.cause instanceof ResourceNotFoundError) {
    // A CRD applied a moment ago: look again before the retry.
    await changed.host.refreshDiscovery().catch(() => undefined);
    throw why.cause;
  }
  const waitsForChange = why.cause === undefined || why.cause instanceof JsonataCompileError || why.cause instanceof ReferenceNotAllowedError;
  if (waitsForChange) throw new TerminalError(`${changed.kind.kind} ${changed.name}: ${message}`, { cause: why.cause });
  throw why.cause;
}
