/**
 * The `Ready` condition loom writes on a parent (docs/ordering-and-readiness.md, "The parent's Ready
 * condition"), as the integration tests wait for it.
 */
import type { KubeObject } from '../../src/api/index.ts';
import { eventually } from './cluster.ts';

/** A parent's `Ready` condition. */
export interface ParentReady {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

/** The `Ready` entry of a parent's `status.conditions`, if it has one. */
export function parentReadyOf(parent: KubeObject | undefined): ParentReady | undefined {
  return ((parent?.status as { conditions?: ParentReady[] } | undefined)?.conditions ?? []).find((c) => c.type === 'Ready');
}

/** The parent `read` finds and its Ready condition, once `accept` takes them. */
export function parentReadyWhen(
  read: () => Promise<KubeObject | undefined>,
  accept: (ready: ParentReady, parent: KubeObject) => boolean,
  what: string,
): Promise<{ ready: ParentReady; parent: KubeObject }> {
  return eventually(async () => {
    const parent = await read();
    const ready = parentReadyOf(parent);
    return parent && ready && accept(ready, parent) ? { ready, parent } : undefined;
  }, what);
}
