/**
 * Everything one running DecoratorController knows: its parsed spec, the target and attachment
 * types with their caches, its hook runners, and its memory of what it applied.
 */
import type { Logger } from 'pino';
import type { AttachmentRule, DecoratorController, DecoratorResourceRule } from '../../api/index.ts';
import type { AppliedRecords } from '../../apply/index.ts';
import type { HookRunner } from '../../hooks/index.ts';
import type { ReadonlyObjectStore, ResourceType } from '../../kube/index.ts';
import type { ControllerLabels } from '../../metrics/metrics.ts';
import type { ReadinessJudge } from '../../sync/readiness-judge.ts';
import type { Host } from '../host.ts';
import type { RelatedObjects } from '../related-objects.ts';

/** One `spec.resources[]` entry with its cache. */
export interface TargetType {
  rule: DecoratorResourceRule;
  type: ResourceType;
  store: ReadonlyObjectStore;
}

/** One `spec.attachments[]` entry with its cache. */
export interface AttachmentType {
  rule: AttachmentRule;
  type: ResourceType;
  store: ReadonlyObjectStore;
}

/** The state of one running DecoratorController. */
export interface DecoratorContext {
  host: Host;
  controller: DecoratorController;
  labels: ControllerLabels;
  targets: readonly TargetType[];
  attachments: readonly AttachmentType[];
  runners: { sync?: HookRunner | undefined; finalize?: HookRunner | undefined };
  /** Judges the readiness of its attachments: their `readyWhen` (annotation, else type), else kstatus. */
  readiness: ReadinessJudge;
  /** Present when the controller has a customize hook. */
  related?: RelatedObjects | undefined;
  finalizer: string;
  records: AppliedRecords;
  logger: Logger;
}
