/**
 * What a ControllerRevision is for a CompositeController parent (docs/hook-protocol.md,
 * "Rolling updates"; docs/concepts.md, "Labels and annotations loom writes"): the parent patch it
 * records (`revisionHistory.fieldPaths`), its name, labels and owner, the parent "as of" a revision, and
 * how the claimed revisions of a parent split into the latest one and the historic ones. Pure: plain
 * objects in, plain objects out.
 *
 * Every rule is Metacontroller's (`pkg/controller/composite/controller_revision.go`), so revisions
 * Metacontroller wrote are recognised by loom and the other way round.
 */
import { createHash } from 'node:crypto';
import type { ControllerRevision } from '../api/controller-revision.ts';
import type { JsonObject } from '../api/hook-wire.ts';
import { canonicalJson, isRecord, jsonEqual } from '../api/json-value.ts';
import type { LabelSelector } from '../api/label-selector.ts';
import type { Json, KubeObject } from '../api/object.ts';
import {
  CONTROLLER_UID_LABEL, GROUP_VERSION, KINDS, REVISION_API_GROUP_LABEL, REVISION_RESOURCE_LABEL,
} from '../api/well-known.ts';
import { controllerRefFor } from './claim.ts';

/** A revision cannot be built or read: a bad field path, a malformed `parentPatch`, bad parent labels. */
export class RevisionError extends Error {
  override readonly name = 'RevisionError';
}

/** The parent type, as ControllerRevision names and labels spell it. */
export interface ParentResource {
  /** API group; `''` for the core group. */
  group: string;
  /** Lower-case plural resource name. */
  resource: string;
}

/** Longest name prefix: 253 (object name limit) − 40 (sha1 hex) − 1 (the `-`). */
const MAX_PREFIX = 253 - 41;

/** `value` as a JSON object, or `undefined`. */
function objectOf(value: unknown): JsonObject | undefined {
  return isRecord(value) ? (value as JsonObject) : undefined;
}

/** Sets an own key, so a field named `__proto__` stays a plain key instead of changing the prototype. */
function setOwn(target: JsonObject, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * The value at `parts` in `source`, as Go's `unstructured.NestedFieldNoCopy`: a missing key or a `null`
 * on the way means "not found"; any other non-object on the way is an error.
 */
function lookup(source: JsonObject, parts: readonly string[]): { found: false } | { found: true; value: Json } {
  let current: Json = source;
  for (const [i, part] of parts.entries()) {
    if (current === null) return { found: false };
    const obj = objectOf(current);
    if (!obj) throw new RevisionError(`field path ${parts.join('.')}: ${parts.slice(0, i).join('.')} is not an object`);
    if (!Object.hasOwn(obj, part)) return { found: false };
    current = obj[part] as Json;
  }
  return { found: true, value: current };
}

/**
 * Sets a copy of `value` at `parts` in `target`, creating missing objects on the way, as Go's
 * `unstructured.SetNestedField`: an existing non-object (even `null`) on the way is an error.
 */
function assign(target: JsonObject, parts: readonly string[], value: Json): void {
  let current = target;
  for (const [i, part] of parts.slice(0, -1).entries()) {
    if (!Object.hasOwn(current, part)) setOwn(current, part, {});
    const next = objectOf(current[part]);
    if (!next) throw new RevisionError(`field path ${parts.join('.')}: ${parts.slice(0, i + 1).join('.')} is not an object`);
    current = next;
  }
  setOwn(current, parts.at(-1) ?? '', structuredClone(value));
}

/**
 * The `parentPatch` of `parent` (Metacontroller's `makePatch`): an object holding only the subtrees of
 * the parent at the dotted `fieldPaths` (`revisionHistory.fieldPaths`, `["spec"]` by default — the
 * parsed spec already carries the default), at the same paths. Paths the parent does not have are left
 * out. Only changes under these paths start a rolling update.
 * @throws RevisionError when a path runs through a non-object value.
 */
export function parentPatchOf(parent: KubeObject, fieldPaths: readonly string[]): JsonObject {
  const patch: JsonObject = {};
  for (const path of fieldPaths) {
    const parts = path.split('.');
    const hit = lookup(parent as unknown as JsonObject, parts);
    if (hit.found) assign(patch, parts, hit.value);
  }
  return patch;
}

/**
 * The parent as of a revision (Metacontroller's `applyPatch`): a copy of the current `parent` with each
 * `fieldPaths` subtree the revision's `patch` holds put back. Everything else — metadata, status, paths
 * the patch lacks — is the current parent's. The engine calls the sync hook with this object to learn
 * what the revision wants; that is why hooks must be free of side effects.
 * @throws RevisionError when a path runs through a non-object value.
 */
export function parentAtRevision(parent: KubeObject, patch: Readonly<JsonObject>, fieldPaths: readonly string[]): KubeObject {
  const copy = structuredClone(parent) as unknown as JsonObject;
  for (const path of fieldPaths) {
    const parts = path.split('.');
    const hit = lookup(patch, parts);
    if (hit.found) assign(copy, parts, hit.value);
  }
  return copy as unknown as KubeObject;
}

/**
 * JSON text exactly as Go's `json.Marshal` writes a `map[string]interface{}`: keys sorted, no
 * whitespace, `<`, `>`, `&`, U+2028, U+2029 escaped. The revision name hashes these bytes, so they must
 * match Metacontroller's. (Those characters only occur inside strings, so replacing them is safe.)
 */
function goJson(value: Json): string {
  return canonicalJson(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The name Metacontroller gives the revision of a parent with this patch:
 * `<resource>.<group or "core">-<hex sha1(parent UID bytes ‖ Go JSON of the patch)>`, the prefix cut to
 * 212 characters so the name fits in 253. Same UID and patch ⇒ same name whatever the key order.
 * Used only to create revisions idempotently: existing revisions are matched by patch, never by name.
 */
export function controllerRevisionName(input: { parentResource: ParentResource; parentUid: string; patch: Readonly<JsonObject> }): string {
  const { group, resource } = input.parentResource;
  const prefix = `${resource}.${group || 'core'}`.slice(0, MAX_PREFIX);
  const hash = createHash('sha1').update(input.parentUid).update(goJson(input.patch)).digest('hex');
  return `${prefix}-${hash}`;
}

/**
 * The labels of the parent's pod-template-like `spec.template.metadata.labels` (absent or `null`: none).
 * @throws RevisionError when they are not a map of strings.
 */
function templateLabels(parent: KubeObject): Record<string, string> {
  const hit = lookup(parent as unknown as JsonObject, ['spec', 'template', 'metadata', 'labels']);
  if (!hit.found || hit.value === null) return {};
  const labels = objectOf(hit.value);
  if (!labels || !Object.values(labels).every((v) => typeof v === 'string')) {
    throw new RevisionError(`invalid labels on parent ${parent.kind} ${parent.metadata.namespace}/${parent.metadata.name}: spec.template.metadata.labels must be a map of strings`);
  }
  return { ...(labels as Record<string, string>) };
}

/**
 * The labels of a new revision (docs/concepts.md, "Labels and annotations loom writes"):
 * `controller-uid=<uid>` with `generateSelector`, else the parent's `spec.template.metadata.labels` (how
 * a parent finds its orphaned revisions again), plus the parent's API group and resource so revisions of
 * different parent types never overlap.
 */
function revisionLabels(parent: KubeObject, parentResource: ParentResource, generateSelector: boolean): Record<string, string> {
  const base = generateSelector ? { [CONTROLLER_UID_LABEL]: parent.metadata.uid ?? '' } : templateLabels(parent);
  return { ...base, [REVISION_API_GROUP_LABEL]: parentResource.group, [REVISION_RESOURCE_LABEL]: parentResource.resource };
}

/** What {@link newControllerRevision} needs. */
export interface NewRevisionInput {
  /** The current parent. */
  parent: KubeObject;
  /** {@link parentPatchOf} the parent. */
  patch: Readonly<JsonObject>;
  parentResource: ParentResource;
  generateSelector: boolean;
}

/**
 * A new ControllerRevision for the parent's current state (Metacontroller's `newControllerRevision`):
 * named by {@link controllerRevisionName}, in the parent's namespace, labelled as described at
 * `revisionLabels`, controlled by the parent, holding `patch` and no children yet.
 * @throws RevisionError for a cluster-scoped parent (ControllerRevisions are namespaced; Metacontroller
 *   fails the same way, later, at the API server) or bad template labels.
 * @throws ParentIdentityError when the parent has no name or UID.
 */
export function newControllerRevision(input: NewRevisionInput): ControllerRevision {
  const { parent, patch, parentResource } = input;
  const namespace = parent.metadata.namespace;
  if (!namespace) {
    throw new RevisionError(`rolling updates need a namespaced parent: ${parent.kind} ${parent.metadata.name} is cluster-scoped, and ControllerRevisions live in the parent's namespace`);
  }
  const ownerRef = controllerRefFor(parent);
  return {
    apiVersion: GROUP_VERSION,
    kind: KINDS.controllerRevision.kind,
    metadata: {
      name: controllerRevisionName({ parentResource, parentUid: ownerRef.uid, patch }),
      namespace,
      labels: revisionLabels(parent, parentResource, input.generateSelector),
      ownerReferences: [ownerRef],
    },
    parentPatch: structuredClone(patch),
  };
}

/**
 * The selector that claims a parent's ControllerRevisions (Metacontroller's `makeSelector` with extra
 * labels): the parent's child selector (from `parentSelector`) with the API group and resource labels
 * added to `matchLabels`. Claim, adopt and release revisions with it exactly like children.
 */
export function revisionSelector(selector: LabelSelector, parentResource: ParentResource): LabelSelector {
  const matchLabels = {
    ...selector.matchLabels,
    [REVISION_API_GROUP_LABEL]: parentResource.group,
    [REVISION_RESOURCE_LABEL]: parentResource.resource,
  };
  return selector.matchExpressions ? { matchLabels, matchExpressions: structuredClone(selector.matchExpressions) } : { matchLabels };
}

/** A revision and the parent as of it: the hook is called with `parent` to learn what `revision` wants. */
export interface RevisionParent {
  /** A copy; the rollout planner works on copies, never on cached objects. */
  revision: ControllerRevision;
  parent: KubeObject;
}

/** The revisions of one parent for one sync. */
export interface RevisionSet {
  /** The revision of the parent's current state; `isNew` when no claimed revision has its patch. */
  latest: RevisionParent & { isNew: boolean };
  /** Every other claimed revision, in the order given. */
  historic: RevisionParent[];
  /** The claimed revisions as given: what exists, for working out which writes to make. */
  observed: ControllerRevision[];
}

/** What {@link revisionSet} needs. */
export interface RevisionSetInput extends Omit<NewRevisionInput, 'patch'> {
  /** The parent's claimed ControllerRevisions (see {@link revisionSelector}). */
  revisions: readonly ControllerRevision[];
  fieldPaths: readonly string[];
}

function patchOf(revision: ControllerRevision): JsonObject {
  const patch = objectOf(revision.parentPatch);
  if (!patch) throw new RevisionError(`ControllerRevision ${revision.metadata.name}: parentPatch is not a JSON object`);
  return patch;
}

/**
 * Step 1 of a rolling sync (docs/hook-protocol.md, "Rolling updates"): the revision whose `parentPatch`
 * deep-equals the current parent's patch is the latest (if several do, the last one wins and the others
 * are left to be deleted, as in Metacontroller); every other revision is historic, paired with
 * {@link parentAtRevision}; with no match a new latest revision is prepared ({@link newControllerRevision}).
 * @throws RevisionError for a malformed revision or parent; nothing must be written then.
 */
export function revisionSet(input: RevisionSetInput): RevisionSet {
  const { parent, fieldPaths } = input;
  const latestPatch = parentPatchOf(parent, fieldPaths);
  let latest: ControllerRevision | undefined;
  const historic: RevisionParent[] = [];
  for (const revision of input.revisions) {
    const patch = patchOf(revision);
    if (jsonEqual(patch, latestPatch)) latest = structuredClone(revision);
    else historic.push({ revision: structuredClone(revision), parent: parentAtRevision(parent, patch, fieldPaths) });
  }
  const current = structuredClone(parent);
  return {
    latest: latest
      ? { revision: latest, parent: current, isNew: false }
      : { revision: newControllerRevision({ ...input, patch: latestPatch }), parent: current, isNew: true },
    historic,
    observed: input.revisions.map((r) => structuredClone(r)),
  };
}
