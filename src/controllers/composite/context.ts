/**
 * Everything one running CompositeController knows: its parsed spec, the resolved types and
 * their caches, its hook runners, and its memory of what it applied.
 */
import type { Logger } from 'pino';
import type { ChildResourceRule, CompositeController } from '../../api/index.ts';
import type { AppliedRecords } from '../../apply/index.ts';
import type { HookRunner } from '../../hooks/index.ts';
import type { ReadonlyObjectStore, ResourceType } from '../../kube/index.ts';
import type { ControllerLabels } from '../../metrics/metrics.ts';
import type { ReadinessJudge } from '../../sync/readiness-judge.ts';
import type { Host } from '../host.ts';
import type { RelatedObjects } from '../related-objects.ts';

/** One declared child type with its cache. */
export interface ChildType {
  rule: ChildResourceRule;
  type: ResourceType;
  store: ReadonlyObjectStore;
}

/** The state of one running CompositeController. */
export interface CompositeContext {
  host: Host;
  controller: CompositeController;
  labels: ControllerLabels;
  parentType: ResourceType;
  parents: ReadonlyObjectStore;
  children: readonly ChildType[];
  /** The ControllerRevision cache, when a child type rolls (RollingRecreate / RollingInPlace). */
  revisions?: { type: ResourceType; store: ReadonlyObjectStore } | undefined;
  runners: { sync?: HookRunner | undefined; finalize?: HookRunner | undefined };
  /** Judges the readiness of its children: their `readyWhen` (annotation, else type), else kstatus. */
  readiness: ReadinessJudge;
  /** Present when the controller has a customize hook. */
  related?: RelatedObjects | undefined;
  finalizer: string;
  records: AppliedRecords;
  logger: Logger;
  /** Set once the "no status subresource" event was recorded, so it is said once, not per sync. */
  warnedNoStatus: { value: boolean };
}
