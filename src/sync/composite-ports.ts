/**
 * What one sync of a CompositeController parent does to the world, step by step: the ports
 * `syncParent` (composite-sync.ts) is written against. The running controller implements them over
 * the cluster (controllers/composite/live-ports.ts); `loom render` and `loom plan` over files and
 * read-only lists (offline/render-composite.ts). The order of the steps and every decision between
 * them stay in one place, `syncParent`.
 */
import type { ChildPolicies, CompositeHookResponse, Json, KubeObject, LabelSelector, TypedObjects } from '../api/index.ts';
import type { ChildrenReport } from '../core/index.ts';

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
  /** The sync's: ends readiness judging (expressions) when the controller stops. */
  signal: AbortSignal;
}

/** What the child writes came to. */
export interface ChildWritesResult {
  /** The writes that failed (see {@link CompositeSyncPorts.manageChildren}). */
  failures: Error[];
  /**
   * Holds and readiness, for the parent's Ready condition: present when a child asks for order or the
   * controller sets `spec.readyCondition` (docs/ordering-and-readiness.md).
   */
  report?: ChildrenReport | undefined;
}

/** The status a sync writes, and what its child writes came to. */
export interface StatusWrite {
  /** Every child write of the sync landed: `observedGeneration` moves. */
  childrenWritten: boolean;
  /** The report of the child writes, when there is one: the Ready condition is made of it. */
  report?: ChildrenReport | undefined;
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
   * Creates, updates and deletes children toward `desired`, in order when they ask for it; resolves
   * the writes that failed, a `PlanStoppedError` for each write not started once `stopIf` gave a
   * reason, and the report of holds and readiness.
   */
  manageChildren(writes: ChildWrites): Promise<ChildWritesResult>;
  /**
   * The lifecycle policies of `child`'s type (its `childResources[]` entry), which its annotations
   * override; absent: the annotations alone decide.
   */
  childRule?(child: KubeObject): ChildPolicies | undefined;
  /**
   * Writes the parent's status from the hook's; `observedGeneration` moves only when `childrenWritten`;
   * the Ready condition is added from the report when there is one and the controller wants it.
   */
  writeStatus(parent: KubeObject, hookStatus: { [key: string]: Json } | null, written: StatusWrite): Promise<void>;
}
