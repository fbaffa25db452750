/**
 * What `loom dev` may write to a cluster it was pointed at: only objects of its own. It creates them
 * (never force-applies over a namesake), marks them with {@link DEV_MARK} so a rerun after a crash
 * recognises the ones a dead run left behind, refuses to start when a name it needs is someone else's,
 * and deletes on the way out only the object it wrote (by UID). Shared definitions (loom's CRDs, which
 * an installed Metacontroller or loom may own) are created when absent and otherwise left as they are.
 */
import type { KubeObject, LabelSelector } from '../api/index.ts';
import { isAlreadyExists, type ObjectRef, type ObjectWriter } from '../kube/index.ts';

/** The label that marks an object `loom dev` created; dev's host runs only controllers that carry it. */
export const DEV_MARK = { key: 'app.kubernetes.io/managed-by', value: 'loom-dev' } as const;

/** The field manager of dev's writes. */
export const DEV_FIELD_MANAGER = 'loom-dev';

/** Thrown when a name dev needs is held by an object it did not create. */
export class NotDevsOwnError extends Error {
  override readonly name = 'NotDevsOwnError';
}

function refOf(obj: KubeObject): ObjectRef {
  return { apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' };
}

/** Whether `obj` carries dev's mark. */
export function isDevsOwn(obj: KubeObject): boolean {
  return obj.metadata.labels?.[DEV_MARK.key] === DEV_MARK.value;
}

/** `selector` narrowed to the objects dev marked, so its host never runs a controller someone else made. */
export function devSelector(selector: LabelSelector | undefined): LabelSelector {
  return { ...selector, matchLabels: { ...selector?.matchLabels, [DEV_MARK.key]: DEV_MARK.value } };
}

/**
 * Creates `obj` (marked as dev's), or takes back the one a crashed run of dev left (marked, and
 * still at the version read: a change meanwhile fails the write). Throws {@link NotDevsOwnError}
 * when the name belongs to an object dev did not create, which is left untouched. Resolves with the
 * object as written.
 */
export async function createOwn(writer: ObjectWriter, obj: KubeObject): Promise<KubeObject> {
  const marked = { ...obj, metadata: { ...obj.metadata, labels: { ...obj.metadata.labels, [DEV_MARK.key]: DEV_MARK.value } } };
  try {
    return await writer.apply(marked, { fieldManager: DEV_FIELD_MANAGER, createOnly: true });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  const existing = await writer.get(refOf(obj));
  if (existing && !isDevsOwn(existing)) {
    throw new NotDevsOwnError(
      `${obj.kind} ${obj.metadata.name} exists and was not created by loom dev (it has no label ${DEV_MARK.key}=${DEV_MARK.value}); ` +
      'loom dev leaves it as it is and stops: delete it, or run loom dev against a cluster without it');
  }
  const resourceVersion = existing?.metadata.resourceVersion;
  const precondition = resourceVersion ? { resourceVersion } : {};
  return writer.apply({ ...marked, metadata: { ...marked.metadata, ...precondition } }, { fieldManager: DEV_FIELD_MANAGER, createOnly: !existing });
}

/** Deletes the object dev wrote, and only that one (a namesake created since is left alone). */
export async function deleteOwn(writer: ObjectWriter, written: KubeObject): Promise<void> {
  await writer.delete(refOf(written), { uid: written.metadata.uid });
}

/**
 * Creates each definition that is absent; one already there is left as it is (its fields, versions
 * and field managers), whoever installed it. Resolves with the names of those left alone.
 */
export async function createAbsent(writer: ObjectWriter, objects: readonly KubeObject[]): Promise<string[]> {
  const present: string[] = [];
  for (const obj of objects) {
    try {
      await writer.apply(obj, { fieldManager: DEV_FIELD_MANAGER, createOnly: true });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      present.push(obj.metadata.name ?? '');
    }
  }
  return present;
}
