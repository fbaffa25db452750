/**
 * Which updates a sync can care about when a controller sets `ignoreStatusChanges`: a new spec (the
 * generation), labels, annotations, finalizers or a deletion. An update that touched only the status
 * (or nothing a sync reads) is dropped, so a controller's own status write does not wake it again.
 */
import { jsonEqual } from '../api/json-value.ts';
import type { KubeObject } from '../api/object.ts';

/** False for an update that touched only status (or nothing a sync reads). */
export function isSpecOrMetaChange(previous: KubeObject, current: KubeObject): boolean {
  const [p, c] = [previous.metadata, current.metadata];
  const same = (a: unknown, b: unknown): boolean => jsonEqual(a ?? null, b ?? null);
  return p.generation !== c.generation || !same(p.labels, c.labels) || !same(p.annotations, c.annotations)
    || p.deletionTimestamp !== c.deletionTimestamp || !same(p.finalizers, c.finalizers);
}
