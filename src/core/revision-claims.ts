/**
 * Which revision each rolling child belongs to (docs/hook-protocol.md, "Rolling updates"): the
 * `children` lists of ControllerRevisions, how they are cleaned and edited during one sync, and the
 * ControllerRevision writes that persist them. Children are named version-less and namespace-less —
 * `{apiGroup, kind, name}` — as in the ControllerRevision API, because a revision outlives a child's API
 * version.
 *
 * The editing functions change the revision copies the rollout planner owns; nothing here touches an
 * input the caller gave.
 */
import type { ControllerRevision } from '../api/controller-revision.ts';
import { jsonEqual } from '../api/json-value.ts';
import { groupOf, type KubeObject } from '../api/object.ts';

/** One child as a ControllerRevision names it. */
export interface RevisionChildRef {
  /** `''` for the core group. */
  apiGroup: string;
  kind: string;
  name: string;
}

/** Finds a child by group, kind and name, whatever its version (Metacontroller's `FindGroupKindName`). */
export type ChildLookup = (ref: RevisionChildRef) => KubeObject | undefined;

/** Which revision claims each child, by {@link refKey}. */
export type ClaimMap = Map<string, ControllerRevision>;

/** A write that persists revision bookkeeping; all of them must succeed before any child is touched. */
export type RevisionWrite =
  /** Delete a revision no child belongs to any more (UID precondition, so a namesake is never hit). */
  | { action: 'delete'; name: string; uid: string | undefined }
  /** Create the latest revision. */
  | { action: 'create'; revision: ControllerRevision }
  /** Replace a revision whose `children` changed; carries the observed `resourceVersion`. */
  | { action: 'update'; revision: ControllerRevision };

/** The map key of a child reference. */
export function refKey(ref: RevisionChildRef): string {
  return JSON.stringify([ref.apiGroup, ref.kind, ref.name]);
}

/** How a revision names `obj`. */
export function refOf(obj: KubeObject): RevisionChildRef {
  return { apiGroup: groupOf(obj.apiVersion), kind: obj.kind, name: obj.metadata.name ?? '' };
}

/** A lookup over `objects`; when two share group, kind and name, the last one wins. */
export function childLookup(objects: readonly KubeObject[]): ChildLookup {
  const byRef = new Map(objects.map((obj) => [refKey(refOf(obj)), obj]));
  return (ref) => byRef.get(refKey(ref));
}

/** Every child `revision` claims, in list order. */
export function claimedRefs(revision: ControllerRevision): RevisionChildRef[] {
  return (revision.children ?? []).flatMap((entry) => entry.names.map((name) => ({ apiGroup: entry.apiGroup, kind: entry.kind, name })));
}

/** How many children `revision` claims; a historic revision with none is deleted. */
export function countChildren(revision: ControllerRevision): number {
  return (revision.children ?? []).reduce((sum, entry) => sum + entry.names.length, 0);
}

/** Adds `ref` to `revision`'s list (a new kind entry goes last, a new name last in its entry). */
export function addChild(revision: ControllerRevision, ref: RevisionChildRef): void {
  const children = (revision.children ??= []);
  let entry = children.find((e) => e.apiGroup === ref.apiGroup && e.kind === ref.kind);
  if (!entry) {
    entry = { apiGroup: ref.apiGroup, kind: ref.kind, names: [] };
    children.push(entry);
  }
  if (!entry.names.includes(ref.name)) entry.names.push(ref.name);
}

/** Removes `ref` from `revision`'s list, if it is there. */
export function removeChild(revision: ControllerRevision, ref: RevisionChildRef): void {
  const entry = revision.children?.find((e) => e.apiGroup === ref.apiGroup && e.kind === ref.kind);
  if (entry) entry.names = entry.names.filter((name) => name !== ref.name);
}

/**
 * Step 3 (Metacontroller's `syncRevisionClaims`): rewrites every revision's `children` to keep only
 * the children `keep` accepts — in practice, of a kind that still rolls and still desired by the latest
 * revision (a child the latest no longer wants is deleted at once, so its claim can go) — and gives each
 * child to the first revision that lists it, so with the latest first, the latest wins. Kind entries
 * left without names are dropped. Returns who claims what.
 *
 * Metacontroller computes the filtered names but writes the unfiltered entry back (a bug that keeps
 * stale and doubly claimed names in historic revisions for an extra sync); loom writes what it means.
 */
export function cleanClaims(revisions: readonly ControllerRevision[], keep: (ref: RevisionChildRef) => boolean): ClaimMap {
  const claims: ClaimMap = new Map();
  for (const revision of revisions) {
    const refs = claimedRefs(revision).filter((ref) => keep(ref) && !claims.has(refKey(ref)));
    revision.children = [];
    for (const ref of refs) {
      claims.set(refKey(ref), revision);
      addChild(revision, ref);
    }
  }
  return claims;
}

/** The revision as written: kind entries without names are left out, and `children` when empty. */
function asWritten(revision: ControllerRevision): ControllerRevision {
  const copy = structuredClone(revision);
  const children = (copy.children ?? []).filter((entry) => entry.names.length > 0);
  if (children.length > 0) copy.children = children;
  else delete copy.children;
  return copy;
}

/**
 * Step 6 (Metacontroller's `manageRevisions`): deletes for every observed revision not in `desired`
 * (matched by name), then a create or an update for each desired revision in order — the latest
 * first — skipping updates that would not change the stored object. The caller makes these writes in
 * order, and only once all succeeded does it touch children, so rollout progress survives a restart.
 */
export function revisionWrites(observed: readonly ControllerRevision[], desired: readonly ControllerRevision[]): RevisionWrite[] {
  const wanted = new Set(desired.map((r) => r.metadata.name));
  const deletes = observed
    .filter((r) => !wanted.has(r.metadata.name))
    .map((r): RevisionWrite => ({ action: 'delete', name: r.metadata.name ?? '', uid: r.metadata.uid }));
  const existing = new Map(observed.map((r) => [r.metadata.name, r]));
  const upserts = desired.flatMap((revision): RevisionWrite[] => {
    const next = asWritten(revision);
    const old = existing.get(revision.metadata.name);
    if (!old) return [{ action: 'create', revision: next }];
    if (jsonEqual(asWritten(old), next)) return [];
    // The copy came from the observed revision; restate its resourceVersion so the PUT is optimistic.
    if (old.metadata.resourceVersion !== undefined) next.metadata.resourceVersion = old.metadata.resourceVersion;
    return [{ action: 'update', revision: next }];
  });
  return [...deletes, ...upserts];
}
