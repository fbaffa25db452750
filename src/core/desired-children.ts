/**
 * Checks and completes the children a CompositeController's hook asked for, before anything is written
 * (docs/concepts.md, "Checking desired children"). One bad child fails the whole sync — as in
 * Metacontroller, no child and no status is written — and every problem is reported at once so the user
 * can fix them in one go.
 */
import { formatSelector, matchesSelector, type LabelSelector } from '../api/label-selector.ts';
import { controllerRefOf, groupOf, objectKey, type KubeObject } from '../api/object.ts';
import type { ApplyStrategy } from './child-plan.ts';
import { runToEnd } from './run-to-end.ts';
import { CONTROLLER_UID_LABEL, controllerRefFor } from './claim.ts';
import { sanitizeForApply } from './sanitize-desired.ts';

/** A child type the controller declares in `spec.childResources`, with its scope from discovery. */
export interface DeclaredChildType {
  apiVersion: string;
  kind: string;
  namespaced: boolean;
}

/** What `normaliseDesiredChildren` needs. */
export interface DesiredChildrenOptions {
  parent: KubeObject;
  /** The hook response's `children`, as decoded. Never modified. */
  children: readonly KubeObject[];
  declaredTypes: readonly DeclaredChildType[];
  /** The parent's selector, from `parentSelector`; absent for a decorator's attachments, which need none. */
  selector?: LabelSelector | undefined;
  generateSelector: boolean;
  /** Annotations stamped on every child (a decorator's attachments carry the decorator's name). */
  annotations?: Readonly<Record<string, string>> | undefined;
  /** Labels stamped on every child over the hook's own: the parent's shard bucket, when replicas share the parents. */
  labels?: Readonly<Record<string, string>> | undefined;
  /** With `server-side-apply`, the children are also stripped of what an apply must not send. */
  applyStrategy?: ApplyStrategy | undefined;
  /** `--max-children-per-parent`: more children than this fail the sync unchecked; absent or 0: no limit. */
  maxChildren?: number | undefined;
}

/** Either every child is valid and completed, or the list of everything that is wrong. */
export type DesiredChildrenResult = { ok: true; children: KubeObject[] } | { ok: false; problems: string[] };

type Step = { child: KubeObject } | { problem: string };

function describe(obj: KubeObject): string {
  return `${obj.kind} ${objectKey(obj.metadata.namespace || undefined, obj.metadata.name ?? '')}`;
}

function typeName(t: { apiVersion: string; kind: string }): string {
  return `${t.kind}.${t.apiVersion}`;
}

function identityProblem(child: KubeObject, index: number): string | undefined {
  const missing = [
    typeof child.apiVersion === 'string' && child.apiVersion ? undefined : 'apiVersion',
    typeof child.kind === 'string' && child.kind ? undefined : 'kind',
    typeof child.metadata?.name === 'string' && child.metadata.name ? undefined : 'metadata.name',
  ].filter((field) => field !== undefined);
  return missing.length > 0 ? `desired child children[${index}] has no ${missing.join(', ')}` : undefined;
}

/** The namespace the child lives in (`undefined`: cluster-scoped), or why it cannot be placed. */
function resolveNamespace(child: KubeObject, type: DeclaredChildType, parent: KubeObject): { namespace?: string } | { problem: string } {
  const own = child.metadata.namespace || undefined;
  const parentNs = parent.metadata.namespace || undefined;
  if (!type.namespaced) {
    return own ? { problem: `desired child ${describe(child)} is cluster-scoped and must not set metadata.namespace` } : {};
  }
  if (!parentNs) {
    return own ? { namespace: own } : { problem: `desired child ${describe(child)} needs metadata.namespace: its parent ${describe(parent)} is cluster-scoped` };
  }
  if (own && own !== parentNs) {
    // Owner references cannot cross namespaces: the API server's garbage collector would treat the
    // parent as absent and delete the child.
    return { problem: `desired child ${describe(child)} must be in its parent's namespace ${parentNs}` };
  }
  return { namespace: parentNs };
}

function withNamespace(child: KubeObject, namespace: string | undefined): KubeObject {
  const copy = structuredClone(child);
  if (namespace) copy.metadata.namespace = namespace;
  else delete copy.metadata.namespace;
  return copy;
}

function withLabels(child: KubeObject, parent: KubeObject, generateSelector: boolean): KubeObject {
  const uid = parent.metadata.uid;
  const labels = child.metadata.labels ?? {};
  if (!generateSelector || !uid || Object.hasOwn(labels, CONTROLLER_UID_LABEL)) return child;
  child.metadata.labels = { ...labels, [CONTROLLER_UID_LABEL]: uid };
  return child;
}

function withAnnotations(child: KubeObject, annotations: Readonly<Record<string, string>> | undefined): KubeObject {
  if (annotations) child.metadata.annotations = { ...child.metadata.annotations, ...annotations };
  return child;
}

function withStampedLabels(child: KubeObject, labels: Readonly<Record<string, string>> | undefined): KubeObject {
  if (labels) child.metadata.labels = { ...child.metadata.labels, ...labels };
  return child;
}

/**
 * Sets the parent's controller reference. A reference already carrying the parent's UID is replaced by the
 * canonical one, so that the child is claimed (not adopted again) on the next sync; a child controlled by
 * anyone else cannot also be ours.
 */
function withOwner(child: KubeObject, parent: KubeObject): Step {
  const ref = controllerRefFor(parent);
  const other = controllerRefOf(child);
  if (other && other.uid !== ref.uid) {
    return { problem: `desired child ${describe(child)} is already controlled by ${other.kind} ${other.name}` };
  }
  const refs = child.metadata.ownerReferences ?? [];
  const at = refs.findIndex((r) => r.uid === ref.uid);
  child.metadata.ownerReferences = at < 0 ? [...refs, ref] : refs.map((r, i) => (i === at ? ref : r));
  return { child };
}

function normaliseOne(child: KubeObject, index: number, options: DesiredChildrenOptions): Step {
  const { parent, declaredTypes, selector, generateSelector } = options;
  const missing = identityProblem(child, index);
  if (missing) return { problem: missing };
  const type = declaredTypes.find((t) => t.apiVersion === child.apiVersion && t.kind === child.kind);
  if (!type) {
    const declared = declaredTypes.map(typeName).join(', ') || 'none';
    return { problem: `desired child ${describe(child)} has type ${typeName(child)}, which is not a declared child resource (declared: ${declared})` };
  }
  const placed = resolveNamespace(child, type, parent);
  if ('problem' in placed) return placed;
  const labelled = withStampedLabels(withAnnotations(withLabels(withNamespace(child, placed.namespace), parent, generateSelector), options.annotations), options.labels);
  if (selector && !matchesSelector(selector, labelled.metadata.labels)) {
    return { problem: `labels on desired child ${describe(labelled)} don't match parent selector ${formatSelector(selector)}` };
  }
  return withOwner(labelled, parent);
}

/**
 * Why `count` desired children are too many under `--max-children-per-parent` = `max` (absent or 0:
 * no limit), or `undefined`. Callers check it as early as they can: before decoding a hook's answer.
 */
export function tooManyChildren(count: number, max: number | undefined): string | undefined {
  return max && count > max ? `${count} desired children, more than --max-children-per-parent allows (${max})` : undefined;
}

/** Two desired children naming the same object; the group stands for every version of a kind. */
function duplicateProblems(children: ReadonlyMap<number, KubeObject>): string[] {
  const seen = new Map<string, number>();
  const problems: string[] = [];
  children.forEach((child, index) => {
    const id = [groupOf(child.apiVersion), child.kind, child.metadata.namespace ?? '', child.metadata.name].join('\u0000');
    const first = seen.get(id);
    if (first === undefined) seen.set(id, index);
    else problems.push(`desired child ${describe(child)} appears more than once (children[${first}] and children[${index}])`);
  });
  return problems;
}

/**
 * Validates the hook's desired children and completes them for writing: namespace defaulted to the
 * parent's, `controller-uid` label injected with `generateSelector`, the parent's controller reference
 * set. Rejects children of undeclared types, children outside the parent's namespace, namespaced children
 * of a cluster-scoped parent without a namespace, cluster-scoped children with one, children whose labels
 * do not match the parent's selector, children already controlled by another owner, and duplicates;
 * and more children than `maxChildren`, before looking at any. Returns copies; the inputs are not modified.
 */
export function normaliseDesiredChildren(options: DesiredChildrenOptions): DesiredChildrenResult {
  return runToEnd(normaliseDesiredChildrenInSlices(options, Infinity));
}

/**
 * {@link normaliseDesiredChildren} in slices of at most `size` children: the generator pauses after each
 * slice, so a caller can let the event loop turn between them. Returns the same result.
 */
export function* normaliseDesiredChildrenInSlices(options: DesiredChildrenOptions, size: number): Generator<void, DesiredChildrenResult> {
  const tooMany = tooManyChildren(options.children.length, options.maxChildren);
  // Refused before any per-child work: checking and planning a flood would hold the event loop.
  if (tooMany !== undefined) return { ok: false, problems: [tooMany] };
  // Keyed by position in the response, so that messages can point at `children[i]`.
  const valid = new Map<number, KubeObject>();
  const problems: string[] = [];
  for (const [index, child] of options.children.entries()) {
    const step = normaliseOne(child, index, options);
    if ('problem' in step) problems.push(step.problem);
    else valid.set(index, options.applyStrategy === 'server-side-apply' ? sanitizeForApply(step.child) : step.child);
    if ((index + 1) % size === 0) yield;
  }
  problems.push(...duplicateProblems(valid));
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, children: [...valid.values()] };
}
