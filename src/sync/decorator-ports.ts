/**
 * What one sync of a DecoratorController target does to the world, step by step: the ports
 * `syncTarget` (decorator-sync.ts) is written against. The running controller implements them over the
 * cluster (controllers/decorator/live-ports.ts); `loom render` and `loom plan` over files and
 * read-only lists (offline/render-decorator.ts). The order of the steps and every decision
 * between them stay in one place, `syncTarget`.
 */
import type { DecoratorHookResponse, KubeObject, TypedObjects } from '../api/index.ts';
import type { TargetWrites } from '../core/index.ts';

/** The target a key names, as far as a sync needs it. */
export interface SyncedTarget {
  object: KubeObject;
  /** Whether the decorator's rule for the target's type selects it (labels and annotations). */
  selected: boolean;
  /** Whether the target's type has a status subresource. */
  statusSubresource: boolean;
}

/** One question to the hook about a target. */
export interface TargetCall {
  target: KubeObject;
  observed: KubeObject[];
  finalizing: boolean;
  related: TypedObjects | undefined;
}

/** The steps of a decorator sync that read or write; `K` is the queue key. */
export interface DecoratorSyncPorts<K> {
  /** The cached target `key` names; `undefined` once it (or its type's rule) is gone. */
  target(key: K): SyncedTarget | undefined;
  /** The related objects of the target (the customize hook's selection); `undefined` without a customize hook. */
  related(target: KubeObject, signal: AbortSignal): Promise<TypedObjects | undefined>;
  /** Adds (`true`) or removes the decorator's finalizer; resolves the target as written. */
  setFinalizer(target: KubeObject, present: boolean): Promise<KubeObject>;
  /** The target's attachments: objects it controls that carry this decorator's annotation. */
  attachments(target: KubeObject): KubeObject[];
  /** The hook's answer, its attachments validated and completed. */
  answer(call: TargetCall, signal: AbortSignal): Promise<DecoratorHookResponse>;
  /**
   * Writes what the hook asked of the target itself (labels, annotations, status, finalizer); resolves
   * the target as written (`writes.target` when nothing was), whose `generation` moves when the status
   * went into the object itself (no status subresource).
   */
  writeTarget(writes: TargetWrites): Promise<KubeObject>;
  /**
   * Creates, updates and deletes attachments toward `desired`; resolves the writes that failed, a
   * `PlanStoppedError` for each write not started once `stopIf` (asked before each write) gave a reason.
   */
  manageAttachments(target: KubeObject, desired: KubeObject[], observed: KubeObject[], stopIf: () => string | undefined): Promise<Error[]>;
}
