/**
 * loom's `readiness` field of a hook request (docs/hook-protocol.md, "Readiness"): the verdict on each
 * observed object, keyed exactly as the request's `children` or `attachments` are keyed.
 */
import type { HookVersion } from './controller-spec.ts';
import { buildKeyedMap, type BuildObjectMapOptions, type KeyedMap } from './object-map.ts';
import type { KubeObject } from './object.ts';

/**
 * The readiness of one observed object as a request carries it (docs/ordering-and-readiness.md,
 * "What the hook sees"): a kstatus status (`Current`, `InProgress`, …) and why.
 */
export interface ObjectReadiness {
  status: string;
  message: string;
}

/** `readiness` of a request: keyed exactly as its `children` (or `attachments`). */
export type ReadinessMap = KeyedMap<ObjectReadiness>;

/**
 * `readiness` keyed as the object map of `typed` is, or nothing without verdicts.
 * @throws Error when the verdicts are not one per object: a request that paired them wrongly would lie.
 */
export function readinessFor(typed: Pick<BuildObjectMapOptions, 'objects' | 'declaredTypes'>, verdicts: readonly ObjectReadiness[] | undefined, version: HookVersion, parent: KubeObject): { readiness?: ReadinessMap } {
  if (verdicts === undefined) return {};
  if (verdicts.length !== typed.objects.length) throw new Error(`readiness of a hook request: ${typed.objects.length} objects but ${verdicts.length} readiness verdicts`);
  const readiness = buildKeyedMap({ ...typed, version, parentNamespace: parent.metadata.namespace }, (_obj, i) => {
    const { status, message } = verdicts[i]!;
    return { status, message };
  });
  return { readiness };
}
