/**
 * What one sync of a CompositeController parent does to the world, step by step: the ports
 * `syncParent` (composite-sync.ts) is written against. The running controller implements them over
 * the cluster (controllers/composite/live-ports.ts); `loom render` and `loom plan` over files and
 * read-only lists (offline/render-composite.ts). The order of the steps and every decision between
 * them stay in one place, `syncParent`.
 */
import type { ChildPolicies, CompositeHookResponse, Json, KubeObject, LabelSelector, TypedObjects } from '../api/index.ts';

/** One question to the hook. */
export interface ParentCall {
  /** The parent as it is: children are validated against it and owned by it. */
  parent: KubeObject;
  /** The parent the hook is shown; a rolling update shows older revisions of it. Default: `parent`. */
  shown?: KubeObject | undefined;
  claimed: KubeObject[];
  finalizing: boolean;
  selector: LabelSelector;
  /** The related objects of `parent` (customize asked about the parent as it is, never a revision). */
  related?: TypedObjects | undefined;
}

/** What the children are written toward, and when to stop writing. */
export interface ChildWrites {
  /** The parent the hook answered about: the children are owned by it. */
  parent: KubeObject;
  selector: LabelSelector;
  desired: KubeObject[];
  claimed: KubeObject[];
  /** Asked before each write: why the answer has gone stale (no further write then), or `undefined`. */
  stopIf: () => string | undefined;
}

/** The steps of a sync that read or write. */
export interface CompositeSyncPorts {
  /** The cached parent of `key`; `undefined` once it is gone. */
  parent(key: string): KubeObject | undefined;
  /** The related objects of `parent` (the customize hook's selection); `undefined` without a customize hook. */
  related(parent: KubeObject, signal: AbortSignal): Promise<TypedObjects | undefined>;
  /** Adds (`true`) or removes the controller's finalizer; resolves the parent as written. */
  setFinalizer(parent: KubeObject, present: boolean): Promise<KubeObject>;
  /** The parent's children after claiming: its own, matching orphans adopted, strays released. */
  claimChildren(parent: KubeObject, selector: LabelSelector): Promise<KubeObject[]>;
  /** The hook's answer, its children validated and completed (one call, or one per revision while rolling). */
  answer(call: ParentCall, signal: AbortSignal): Promise<CompositeHookResponse>;
  /**
   * Creates, updates and deletes children toward `desired`; resolves the writes that failed, a
   * `PlanStoppedError` for each write not started once `stopIf` gave a reason.
   */
  manageChildren(writes: ChildWrites): Promise<Error[]>;
  /**
   * The lifecycle policies of `child`'s type (its `childResources[]` entry), which its annotations
   * override; absent: the annotations alone decide.
   */
  childRule?(child: KubeObject): ChildPolicies | undefined;
  /** Writes the parent's status from the hook's; `observedGeneration` moves only when `childrenWritten`. */
  writeStatus(parent: KubeObject, hookStatus: { [key: string]: Json } | null, childrenWritten: boolean): Promise<void>;
}
