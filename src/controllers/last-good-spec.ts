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

/** One version of a controller object's spec. */
export interface SpecVersion {
  uid: string | undefined;
  generation: number | undefined;
}

const sameVersion = (a: SpecVersion | undefined, b: SpecVersion): boolean => a !== undefined && a.uid === b.uid && a.generation === b.generation;

/** What the meta controller keeps of one kind's controllers that deciding a replacement reads and updates. */
export interface ReplacementState<C> extends Pick<ChangedController<C>, 'host' | 'kind' | 'sources'> {
  /** The version each running controller was started with. */
  running: ReadonlyMap<string, SpecVersion>;
  /** The version each running controller was last refused for, until something changes. */
  refused: Map<string, SpecVersion>;
  /** Controllers whose ConfigMap-held expression changed since they started (or were last refused). */
  sourceChanged: Set<string>;
}

/**
 * Whether controller `name` keeps running its last good spec although `obj` changed (same UID, a new
 * generation or expression): resolves `false` when nothing changed or the new version can start (the
 * caller then stops the old one for it), `true` for a version already refused and reported (nothing
 * is built or said again: the object's own status writes wake it too), and throws when it refuses the
 * new version now ({@link keepLastGood}).
 */
export async function keepsLastGood<C>(state: ReplacementState<C>, name: string, obj: KubeObject | undefined, parsed: ParseResult<C> | undefined): Promise<boolean> {
  const current = state.running.get(name);
  if (!current || !obj || !parsed || current.uid !== obj.metadata.uid) return false;
  const sourceChanged = state.sourceChanged.has(name);
  const version = { uid: obj.metadata.uid, generation: obj.metadata.generation };
  if (sameVersion(current, version) && !sourceChanged) return false;
  if (!sourceChanged && sameVersion(state.refused.get(name), version)) return true;
  await checkRemembered(state, { host: state.host, kind: state.kind, sources: state.sources, name, obj, parsed, generation: current.generation }, version);
  return false;
}

/** {@link keepLastGood}, remembering a refusal that waits for a change; a retried one (a type not served yet) is not. */
async function checkRemembered<C>(state: ReplacementState<C>, changed: ChangedController<C>, version: SpecVersion): Promise<void> {
  try {
    await keepLastGood(changed);
  } catch (err) {
    if (err instanceof TerminalError) {
      state.refused.set(changed.name, version);
      state.sourceChanged.delete(changed.name);
    }
    throw err;
  }
  state.refused.delete(changed.name);
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
