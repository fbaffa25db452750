/**
 * When a rollout may move on (docs/hook-protocol.md, "Rolling updates"; Metacontroller's
 * `shouldContinueRolling` and `childStatusCheck`): every rolling child already on the latest revision
 * must be observed, up to date with what the latest revision wants, past its spec (`RollingInPlace`:
 * `status.observedGeneration`), and pass the kind's `statusChecks`. The first child that does not is the
 * reason the rollout waits; the wording is Metacontroller's, since it ends up in the parent's `Updated`
 * condition.
 */
import type { ControllerRevisionChildren } from '../api/controller-revision.ts';
import type { ChildUpdateStrategy, StatusConditionCheck } from '../api/controller-spec.ts';
import { isRecord } from '../api/json-value.ts';
import type { KubeObject } from '../api/object.ts';
import { fingerprintOf, type AppliedRecord } from './applied-fingerprint.ts';
import type { ApplyStrategy } from './child-plan.ts';
import type { ChildLookup, RevisionChildRef } from './revision-claims.ts';
import { dynamicApplyMerge, jsonEqual, withoutLastApplied } from './three-way-merge.ts';

const GO_ESCAPES: Record<string, string> = {
  '\u0007': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u000b': '\\v', '"': '\\"', '\\': '\\\\',
};

/**
 * A string quoted like Go's `%q` (`strconv.Quote`) for the characters condition types and reasons hold:
 * C escapes, other ASCII controls as `\xNN`, everything else as is.
 */
export function goQuote(text: string): string {
  const quoted = [...text].map((c) => {
    const code = c.charCodeAt(0);
    const control = code < 0x20 || code === 0x7f;
    return GO_ESCAPES[c] ?? (control ? `\\x${code.toString(16).padStart(2, '0')}` : c);
  });
  return `"${quoted.join('')}"`;
}

interface Condition {
  status: string;
  reason: string;
}

/**
 * The first `status.conditions[]` entry of `type` (a non-list counts as none); a non-string `status`
 * or `reason` reads as `''`, as in Metacontroller.
 */
function conditionOf(child: KubeObject, type: string): Condition | undefined {
  const conditions = isRecord(child.status) ? child.status.conditions : undefined;
  if (!Array.isArray(conditions)) return undefined;
  const found: unknown = conditions.find((c) => isRecord(c) && c.type === type);
  if (!isRecord(found)) return undefined;
  return {
    status: typeof found.status === 'string' ? found.status : '',
    reason: typeof found.reason === 'string' ? found.reason : '',
  };
}

/**
 * Why `child` fails the `statusChecks` of its kind (checked in order; the first failure is reported),
 * or `undefined` when it passes. Each check needs a condition of that `type`, and equal `status` and
 * `reason` when the check gives them.
 */
export function statusCheckFailure(child: KubeObject, checks: readonly StatusConditionCheck[]): string | undefined {
  for (const check of checks) {
    const found = conditionOf(child, check.type);
    const type = goQuote(check.type);
    if (!found) return `required condition type missing: ${type}`;
    if (check.status !== undefined && found.status !== check.status) {
      return `${type} condition status is ${goQuote(found.status)} (want ${goQuote(check.status)})`;
    }
    if (check.reason !== undefined && found.reason !== check.reason) {
      return `${type} condition reason is ${goQuote(found.reason)} (want ${goQuote(check.reason)})`;
    }
  }
  return undefined;
}

/** How to tell whether a child already is what a revision wants. */
export interface UpToDateOptions {
  applyStrategy: ApplyStrategy;
  /** Server-side-apply only: loom's record of its last apply of this child (see `planChildren`). */
  lastApplied?: ((observed: KubeObject) => AppliedRecord | undefined) | undefined;
}

/**
 * Whether `observed` already is what `desired` asks for — the rollout's
 * "is this child on its revision's state" question (docs/concepts.md, "Applying children"):
 * - dynamic-apply: the 3-way merge against the last-applied annotation changes nothing, exactly when
 *   `planChildren` would decide `unchanged`.
 * - server-side-apply: loom's apply record says this very object (same UID) got exactly `desired`; or,
 *   without such a record, merging `desired` into observed (annotation ignored) changes nothing.
 *   Metacontroller runs the plain merge here too, but its merge always adds the last-applied
 *   annotation that server-side-applied children lack, so its rollouts never advance in that mode.
 */
export function childUpToDate(observed: KubeObject, desired: KubeObject, options: UpToDateOptions): boolean {
  if (options.applyStrategy === 'dynamic-apply') return !dynamicApplyMerge(observed, desired).changed;
  const record = options.lastApplied?.(observed);
  if (record && record.uid === observed.metadata.uid && record.hash === fingerprintOf(desired)) return true;
  const bare = withoutLastApplied(observed);
  return jsonEqual(withoutLastApplied(dynamicApplyMerge(bare, desired).object), bare);
}

/** What {@link rolloutBlocker} needs. */
export interface RolloutBlockerInput extends UpToDateOptions {
  /** The latest revision's `children`, already cleaned of kinds that do not roll. */
  children: readonly ControllerRevisionChildren[];
  observed: ChildLookup;
  /** What the latest revision's hook call wants. */
  desired: ChildLookup;
  strategyFor: (apiGroup: string, kind: string) => ChildUpdateStrategy | undefined;
}

/** `RollingInPlace` only: `status.observedGeneration` (an integer > 0) is behind `metadata.generation`. */
function behindOnGeneration(child: KubeObject): boolean {
  const observedGeneration = isRecord(child.status) ? child.status.observedGeneration : undefined;
  if (typeof observedGeneration !== 'number' || !Number.isInteger(observedGeneration) || observedGeneration <= 0) return false;
  return observedGeneration < (child.metadata.generation ?? 0);
}

function childBlocker(input: RolloutBlockerInput, ref: RevisionChildRef, strategy: ChildUpdateStrategy): string | undefined {
  const label = `${ref.kind} ${ref.name}`;
  const child = input.observed(ref);
  if (!child) return `missing child ${label}`;
  const desired = input.desired(ref);
  if (!desired || !childUpToDate(child, desired, input)) return `child ${label} is not updated yet`;
  if (strategy.method === 'RollingInPlace' && behindOnGeneration(child)) {
    return `child ${label} with RollingInPlace update strategy hasn't observed latest spec`;
  }
  const failure = statusCheckFailure(child, strategy.statusChecks.conditions);
  return failure === undefined ? undefined : `child ${label} failed status check: ${failure}`;
}

/**
 * Why the rollout must wait, or `undefined` when the next child may move. Children are checked in the
 * latest revision's list order; kinds that do not roll are skipped.
 */
export function rolloutBlocker(input: RolloutBlockerInput): string | undefined {
  for (const entry of input.children) {
    const strategy = input.strategyFor(entry.apiGroup, entry.kind);
    if (strategy?.method !== 'RollingRecreate' && strategy?.method !== 'RollingInPlace') continue;
    for (const name of entry.names) {
      const blocker = childBlocker(input, { apiGroup: entry.apiGroup, kind: entry.kind, name }, strategy);
      if (blocker !== undefined) return blocker;
    }
  }
  return undefined;
}
