/**
 * The `metacontroller.k8s.io/v1alpha1` ControllerRevision object (not `apps/v1`): one parent
 * revision for rolling child updates, stored in the parent's namespace. Types only; the behaviour
 * lives in `core/`.
 */
import type { Json, KubeObject } from './object.ts';

/** The children of one kind that a revision has claimed. Version-less on purpose. */
export interface ControllerRevisionChildren {
  /** `''` for the core group. */
  apiGroup: string;
  kind: string;
  names: string[];
}

/** A ControllerRevision. */
export interface ControllerRevision extends KubeObject {
  /** Only the parent's `revisionHistory.fieldPaths` subtrees. */
  parentPatch: { [field: string]: Json };
  children?: ControllerRevisionChildren[];
}
