/**
 * Which parents select a related object, answered without looking at every parent (Metacontroller
 * scans them all on every related event). Each parent's selections are filed under one bucket: a name
 * it lists, else one `key=value` of its label selector, else the namespace it is confined to, else
 * "anything". An object's event then only visits the buckets of its own name, labels and namespace —
 * the parents that could select it — and each candidate is confirmed with {@link selects}.
 */
import type { KubeObject, LabelSelector } from '../api/index.ts';
import { resourceTypeKey, matchesSelector } from '../api/index.ts';
import { selects, type NamespaceLabels, type RelatedSelection } from './related-selection.ts';

/** Parent keys by the related objects their selections pick. */
export interface RelatedIndex {
  /** Replaces everything `parentKey` selects. */
  set(parentKey: string, selections: readonly RelatedSelection[]): void;
  delete(parentKey: string): void;
  /** Parents whose selections of resource `resourceKey` pick `obj`. */
  parentsSelecting(resourceKey: string, obj: KubeObject, namespaceLabels: NamespaceLabels): Set<string>;
  /**
   * Parents for which a namespace going from `previous` to `current` labels (`undefined`: absent)
   * changes what a namespace selector picks in it.
   */
  parentsOfNamespaceChange(previous: Readonly<Record<string, string>> | undefined, current: Readonly<Record<string, string>> | undefined): Set<string>;
}

interface Entry {
  parentKey: string;
  selection: RelatedSelection;
}

type Buckets = Map<string, Set<Entry>>;

const ANY = '*';
const labelBucket = (key: string, value: string): string => `l:${key}=${value}`;

/** One `key=value` every matching label map has, or `undefined` when the selector has none. */
function requiredLabel(selector: LabelSelector | undefined): string | undefined {
  const first = Object.entries(selector?.matchLabels ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))[0];
  return first && labelBucket(first[0], first[1]);
}

/** The buckets an entry is filed under: every object it may pick lies in one of them. */
function bucketsOf(selection: RelatedSelection): string[] {
  if (selection.names) return selection.names.map((name) => `n:${name}`);
  const label = requiredLabel(selection.labelSelector);
  if (label) return [label];
  return selection.namespace === undefined ? [ANY] : [`ns:${selection.namespace}`];
}

/** The buckets an object's event looks in. */
function lookupBuckets(obj: KubeObject): string[] {
  const labels = Object.entries(obj.metadata.labels ?? {}).map(([key, value]) => labelBucket(key, value));
  return [`n:${obj.metadata.name ?? ''}`, ...labels, `ns:${obj.metadata.namespace ?? ''}`, ANY];
}

function file(buckets: Buckets, bucket: string, entry: Entry): void {
  let set = buckets.get(bucket);
  if (!set) buckets.set(bucket, (set = new Set()));
  set.add(entry);
}

function unfile(buckets: Buckets | undefined, bucket: string, entry: Entry): void {
  const set = buckets?.get(bucket);
  set?.delete(entry);
  if (set?.size === 0) buckets!.delete(bucket);
}

function candidates(buckets: Buckets | undefined, keys: Iterable<string>): Set<Entry> {
  const found = new Set<Entry>();
  for (const key of keys) for (const entry of buckets?.get(key) ?? []) found.add(entry);
  return found;
}

function safely(test: () => boolean): boolean {
  try {
    return test();
  } catch {
    return false; // An invalid selector picks nothing; the parent's own sync reports it.
  }
}

/** Creates an empty index. */
export function createRelatedIndex(): RelatedIndex {
  const byResource = new Map<string, Buckets>();
  const byNamespaceLabel: Buckets = new Map();
  const filed = new Map<string, { resourceKey: string; bucket: string; entry: Entry }[]>();
  const nsFiled = new Map<string, { bucket: string; entry: Entry }[]>();

  const remove = (parentKey: string): void => {
    for (const { resourceKey, bucket, entry } of filed.get(parentKey) ?? []) unfile(byResource.get(resourceKey), bucket, entry);
    for (const { bucket, entry } of nsFiled.get(parentKey) ?? []) unfile(byNamespaceLabel, bucket, entry);
    filed.delete(parentKey);
    nsFiled.delete(parentKey);
  };

  const add = (parentKey: string, selection: RelatedSelection): void => {
    const entry: Entry = { parentKey, selection };
    const resourceKey = resourceTypeKey(selection);
    let buckets = byResource.get(resourceKey);
    if (!buckets) byResource.set(resourceKey, (buckets = new Map<string, Set<Entry>>()));
    for (const bucket of bucketsOf(selection)) {
      file(buckets, bucket, entry);
      filed.get(parentKey)!.push({ resourceKey, bucket, entry });
    }
    if (!selection.namespaceSelector) return;
    const bucket = requiredLabel(selection.namespaceSelector) ?? ANY;
    file(byNamespaceLabel, bucket, entry);
    nsFiled.get(parentKey)!.push({ bucket, entry });
  };

  return {
    set(parentKey, selections) {
      remove(parentKey);
      filed.set(parentKey, []);
      nsFiled.set(parentKey, []);
      for (const selection of selections) add(parentKey, selection);
    },
    delete: remove,
    parentsSelecting(resourceKey, obj, namespaceLabels) {
      const parents = new Set<string>();
      for (const entry of candidates(byResource.get(resourceKey), lookupBuckets(obj))) {
        if (!parents.has(entry.parentKey) && safely(() => selects(entry.selection, obj, namespaceLabels))) parents.add(entry.parentKey);
      }
      return parents;
    },
    parentsOfNamespaceChange(previous, current) {
      const labels = [...Object.entries(previous ?? {}), ...Object.entries(current ?? {})].map(([key, value]) => labelBucket(key, value));
      const picks = (selector: LabelSelector, of: Readonly<Record<string, string>> | undefined) =>
        of !== undefined && safely(() => matchesSelector(selector, of));
      const parents = new Set<string>();
      for (const { parentKey, selection } of candidates(byNamespaceLabel, [...labels, ANY])) {
        if (picks(selection.namespaceSelector!, previous) !== picks(selection.namespaceSelector!, current)) parents.add(parentKey);
      }
      return parents;
    },
  };
}
