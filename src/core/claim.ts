/**
 * Which existing objects a CompositeController parent owns, by the Kubernetes ControllerRef rules
 * (docs/concepts.md, "Claiming and adoption"): the parent's label selector, the controller reference it
 * writes, and the claim / adopt / release decision for each candidate child. Pure: the caller performs
 * the writes.
 */
import { isRecord } from '../api/json-value.ts';
import { CONTROLLER_UID_LABEL } from '../api/well-known.ts';
import { matchesSelector, type LabelSelector, type SelectorRequirement } from '../api/label-selector.ts';
import { controllerRefOf, objectKey, type KubeObject, type OwnerReference } from '../api/object.ts';
import type { AdoptPolicy } from '../api/controller-spec.ts';
import { isReleasedFrom } from './policy-release.ts';

/** The label Metacontroller injects into children with `generateSelector` (value: the parent's UID). */
export { CONTROLLER_UID_LABEL };

/** The parent's `spec.selector` is missing, empty or malformed; the sync fails before any write. */
export class ParentSelectorError extends Error {
  override readonly name = 'ParentSelectorError';
}

/** The parent lacks a field every owner needs (`metadata.name`, `metadata.uid`). */
export class ParentIdentityError extends Error {
  override readonly name = 'ParentIdentityError';
}

const OPERATORS: ReadonlySet<string> = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

function describeParent(parent: KubeObject): string {
  return `parent ${parent.kind} ${objectKey(parent.metadata.namespace, parent.metadata.name ?? '<unnamed>')}`;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

function parseMatchLabels(raw: unknown): Record<string, string> {
  if (!isRecord(raw)) throw new Error('matchLabels must be a map of strings');
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value !== 'string') throw new Error(`matchLabels["${key}"] must be a string`);
  }
  return { ...(raw as Record<string, string>) };
}

function parseOperator(raw: unknown, at: string): SelectorRequirement['operator'] {
  if (typeof raw !== 'string' || !OPERATORS.has(raw)) throw new Error(`${at} has unknown operator "${String(raw)}"`);
  return raw as SelectorRequirement['operator'];
}

/** Mirrors `metav1.LabelSelectorAsSelector`: In/NotIn need values, Exists/DoesNotExist take none. */
function parseRequirement(raw: unknown, index: number): SelectorRequirement {
  const at = `matchExpressions[${index}]`;
  if (!isRecord(raw) || typeof raw.key !== 'string' || raw.key === '') throw new Error(`${at} needs a key`);
  const operator = parseOperator(raw.operator, at);
  const values = raw.values ?? [];
  if (!isStringArray(values)) throw new Error(`${at}.values must be a list of strings`);
  const needsValues = operator === 'In' || operator === 'NotIn';
  if (needsValues !== values.length > 0) {
    throw new Error(`${at}: operator ${operator} ${needsValues ? 'needs values' : 'takes no values'}`);
  }
  return needsValues ? { key: raw.key, operator, values: [...values] } : { key: raw.key, operator };
}

function parseSelector(raw: unknown): LabelSelector {
  if (!isRecord(raw)) throw new Error('spec.selector is missing');
  const selector: LabelSelector = {};
  if (raw.matchLabels !== undefined && raw.matchLabels !== null) selector.matchLabels = parseMatchLabels(raw.matchLabels);
  const expressions = raw.matchExpressions ?? [];
  if (!Array.isArray(expressions)) throw new Error('matchExpressions must be a list');
  if (expressions.length > 0) selector.matchExpressions = expressions.map(parseRequirement);
  if (Object.keys(selector.matchLabels ?? {}).length === 0 && expressions.length === 0) {
    // An empty selector would select every object in scope: almost surely a mistake, and a dangerous one.
    throw new Error('spec.selector must have matchLabels, matchExpressions, or both');
  }
  return selector;
}

function parentUid(parent: KubeObject): string {
  const uid = parent.metadata.uid;
  if (!uid) throw new ParentIdentityError(`${describeParent(parent)} has no metadata.uid`);
  return uid;
}

/**
 * The selector that decides which children belong to `parent`: `controller-uid=<uid>` with
 * `generateSelector` (any `spec.selector` is then ignored), else the parent's `spec.selector`, which must
 * be well formed and non-empty. Returns a fresh object.
 * @throws ParentSelectorError for a missing, empty or malformed `spec.selector`.
 * @throws ParentIdentityError with `generateSelector` when the parent has no UID.
 */
export function parentSelector(options: { parent: KubeObject; generateSelector: boolean }): LabelSelector {
  const { parent, generateSelector } = options;
  if (generateSelector) return { matchLabels: { [CONTROLLER_UID_LABEL]: parentUid(parent) } };
  const spec = parent.spec;
  try {
    return parseSelector(isRecord(spec) ? spec.selector : undefined);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ParentSelectorError(`${describeParent(parent)}: ${reason}`, { cause: err });
  }
}

/**
 * The owner reference the parent sets on each child it controls: `controller: true` so the child has
 * one controller, `blockOwnerDeletion: true` so foreground deletion of the parent waits for it.
 * @throws ParentIdentityError when the parent has no name or UID.
 */
export function controllerRefFor(parent: KubeObject): OwnerReference {
  const name = parent.metadata.name;
  if (!name) throw new ParentIdentityError(`${describeParent(parent)} has no metadata.name`);
  return {
    apiVersion: parent.apiVersion,
    kind: parent.kind,
    name,
    uid: parentUid(parent),
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** What to do with each candidate child; every candidate lands in exactly one list. */
export interface ClaimResult {
  /** Already controlled by the parent and matching its selector: sent to the hook. */
  claimed: KubeObject[];
  /** Orphans to adopt. They join the claimed set only once the adoption write succeeded. */
  adopt: KubeObject[];
  /** Controlled by the parent but no longer matching: remove our owner reference. */
  release: KubeObject[];
  /** Not ours and not to become ours. */
  ignored: KubeObject[];
}

type Verdict = keyof ClaimResult;

interface ClaimContext {
  uid: string;
  selector: LabelSelector;
  parentDeleting: boolean;
  parentNamespace: string | undefined;
  adopt: AdoptPolicy;
}

/**
 * Whether an orphan that matches the selector may be adopted: not while it or the parent is being
 * deleted, not with `adopt: Never`, and never one this parent released by its deletion policy.
 */
function mayAdopt(child: KubeObject, ctx: ClaimContext): boolean {
  if (ctx.parentDeleting || child.metadata.deletionTimestamp || ctx.adopt === 'Never') return false;
  return !isReleasedFrom(child, ctx.uid);
}

function verdictFor(child: KubeObject, ctx: ClaimContext): Verdict {
  // Owner references cannot cross namespaces: a namespaced parent never owns an object elsewhere.
  if (ctx.parentNamespace && child.metadata.namespace !== ctx.parentNamespace) return 'ignored';
  const ref = controllerRefOf(child);
  const matches = matchesSelector(ctx.selector, child.metadata.labels);
  if (ref) {
    if (ref.uid !== ctx.uid) return 'ignored';
    // Keeping what we already own takes no write, so it is allowed while the parent is being deleted.
    if (matches) return 'claimed';
    return ctx.parentDeleting ? 'ignored' : 'release';
  }
  return matches && mayAdopt(child, ctx) ? 'adopt' : 'ignored';
}

/**
 * Sorts `candidates` (the cached objects of one child type that the parent controls or that have no
 * controller) by the Kubernetes ControllerRef rules, as `ClaimObject` in kube-controller-manager does.
 * An owned child that stops matching while the parent is being deleted is left alone (ignored, not
 * claimed, not released). Orphans are not adopted with `adopt: Never` (default `IfExists`), nor when this
 * parent released them by their deletion policy (`policy-release.ts`). Before adopting, the caller must
 * confirm with an uncached read that the parent still has the same UID and no deletionTimestamp.
 */
export function claimChildren(options: {
  parent: KubeObject;
  selector: LabelSelector;
  candidates: readonly KubeObject[];
  adopt?: AdoptPolicy | undefined;
}): ClaimResult {
  const { parent, selector, candidates, adopt = 'IfExists' } = options;
  const ctx: ClaimContext = {
    uid: parentUid(parent),
    selector,
    parentDeleting: Boolean(parent.metadata.deletionTimestamp),
    parentNamespace: parent.metadata.namespace,
    adopt,
  };
  const result: ClaimResult = { claimed: [], adopt: [], release: [], ignored: [] };
  for (const child of candidates) result[verdictFor(child, ctx)].push(child);
  return result;
}

/**
 * `child` with the parent's controller reference added (replacing any reference with the parent's UID),
 * or `undefined` when another controller already controls it, in which case nothing must be written.
 * Meant to be applied to a fresh read of the child, inside the GET+PUT retry loop.
 */
export function adoptedChild(options: { parent: KubeObject; child: KubeObject }): KubeObject | undefined {
  const { parent, child } = options;
  const ref = controllerRefFor(parent);
  const current = controllerRefOf(child);
  if (current && current.uid !== ref.uid) return undefined;
  const others = (child.metadata.ownerReferences ?? []).filter((r) => r.uid !== ref.uid);
  return { ...child, metadata: { ...child.metadata, ownerReferences: [...others, ref] } };
}

/**
 * `child` without any owner reference carrying the parent's UID, or `undefined` when it has none (nothing
 * to write). Meant to be applied to a fresh read of the child, inside the GET+PUT retry loop.
 */
export function releasedChild(options: { parent: KubeObject; child: KubeObject }): KubeObject | undefined {
  const { parent, child } = options;
  const uid = parentUid(parent);
  const refs = child.metadata.ownerReferences ?? [];
  const kept = refs.filter((r) => r.uid !== uid);
  if (kept.length === refs.length) return undefined;
  return { ...child, metadata: { ...child.metadata, ownerReferences: kept } };
}
