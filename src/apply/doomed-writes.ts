/**
 * Writes that cannot succeed within this sync, because an earlier one failed for a reason that holds
 * for them too: the namespace is being deleted (403 "being terminated") or is gone (404 for the
 * namespace), or loom may not make that kind of write there (403 Forbidden). Issuing them anyway
 * turns one such failure into thousands (a hook answering a million children into a namespace that
 * was then deleted made 25,480 doomed writes in five minutes). They are not attempted; the sync still
 * fails naming the first failure, and the next sync tries again.
 */
import { KubeApiError } from '../kube/index.ts';
import type { ChildDecision, ChildRef } from '../core/index.ts';

/** A write not attempted because an earlier failure doomed it; `cause` is that failure. */
export class NotAttemptedError extends Error {
  override readonly name = 'NotAttemptedError';
}

/** The writes one failure dooms. */
export interface DoomedScope {
  namespace: string;
  /** Absent: every write into the namespace but deletes (a terminating namespace still takes those). */
  forbidden?: { apiVersion: string; kind: string; action: ChildDecision['action'] } | undefined;
  /** The failure, quoted in the errors of the writes skipped. */
  because: Error;
}

function namespaceGone(err: KubeApiError, namespace: string): boolean {
  if (err.status === 403) return /being terminated/.test(err.message);
  return err.status === 404 && err.message.includes(`namespaces "${namespace}" not found`);
}

/**
 * The writes doomed by `thrown`, what writing `decision` threw (`error` is how the sync reports it),
 * or `undefined` when the next write may well succeed.
 */
export function doomedBy(thrown: unknown, error: Error, decision: ChildDecision): DoomedScope | undefined {
  const { namespace, apiVersion, kind } = decision.child;
  if (!(thrown instanceof KubeApiError) || decision.action === 'delete') return undefined;
  if (namespace !== '' && namespaceGone(thrown, namespace)) return { namespace, because: error };
  if (thrown.status === 403) return { namespace, forbidden: { apiVersion, kind, action: decision.action }, because: error };
  return undefined;
}

/** Whether `scope` covers the write `decision` would make. */
export function isDoomed(scope: DoomedScope, decision: { child: ChildRef; action: ChildDecision['action'] }): boolean {
  const { child, action } = decision;
  if (child.namespace !== scope.namespace) return false;
  if (scope.forbidden === undefined) return action !== 'delete' && action !== 'unchanged' && action !== 'skip';
  return child.apiVersion === scope.forbidden.apiVersion && child.kind === scope.forbidden.kind && action === scope.forbidden.action;
}
