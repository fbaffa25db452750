/**
 * The pure decisions of a DecoratorController (docs/concepts.md, "DecoratorController writes"): which
 * targets it decorates, which objects are its attachments, and what its hook's answer does to the target
 * — labels and annotations merged (`null` deletes a key), `status` replaced wholesale or left alone.
 */
import { DECORATOR_CONTROLLER_ANNOTATION, jsonEqual, matchesSelector, type AnnotationSelector, type DecoratorResourceRule, type KubeObject } from '../api/index.ts';
import type { JsonObject } from './parent-status.ts';

/** True when `target` satisfies both selectors of `rule` (an absent selector matches everything). */
export function decorates(rule: Pick<DecoratorResourceRule, 'labelSelector' | 'annotationSelector'>, target: KubeObject): boolean {
  if (rule.labelSelector && !matchesSelector(rule.labelSelector, target.metadata.labels)) return false;
  return !rule.annotationSelector || matchesSelector(asLabelSelector(rule.annotationSelector), target.metadata.annotations);
}

/** An annotation selector is a label selector over annotations, `matchAnnotations` for `matchLabels`. */
function asLabelSelector(selector: AnnotationSelector) {
  return {
    ...(selector.matchAnnotations ? { matchLabels: selector.matchAnnotations } : {}),
    ...(selector.matchExpressions ? { matchExpressions: selector.matchExpressions } : {}),
  };
}

/**
 * True when `obj` is an attachment of `target` made by decorator `controllerName`: its controller
 * reference is the target and it carries the decorator's annotation. A decorator never adopts.
 */
export function isAttachmentOf(obj: KubeObject, target: KubeObject, controllerName: string): boolean {
  const controller = obj.metadata.ownerReferences?.find((ref) => ref.controller === true);
  return controller?.uid === target.metadata.uid && obj.metadata.annotations?.[DECORATOR_CONTROLLER_ANNOTATION] === controllerName;
}

/** The annotation every desired attachment is stamped with. */
export function attachmentAnnotations(controllerName: string): Record<string, string> {
  return { [DECORATOR_CONTROLLER_ANNOTATION]: controllerName };
}

/** A label or annotation map with a hook's changes merged in: `null` deletes, other keys stay. */
export function mergeMetadataMap(current: Readonly<Record<string, string>> | undefined, changes: Readonly<Record<string, string | null>>): Record<string, string> {
  const merged: Record<string, string> = { ...current };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/** What a decorator hook's answer asks of the target. */
export interface TargetChanges {
  labels: Readonly<Record<string, string | null>>;
  annotations: Readonly<Record<string, string | null>>;
  /** `null`: leave the status alone. */
  status: JsonObject | null;
}

function sameMap(merged: Record<string, string>, current: Readonly<Record<string, string>> | undefined): boolean {
  return jsonEqual(merged, current ?? {});
}

/** How the target is written after a sync. */
export interface TargetWriteOptions {
  /** The decorator's finalizer, and whether the finalize hook let go of the target. */
  finalizer: string;
  removeFinalizer: boolean;
  /** Whether the target's type has a status subresource. */
  statusSubresource: boolean;
}

/** The target as the hook wants it, and the writes that get it there. */
export interface TargetWrites {
  /** The target with labels, annotations, status and finalizers as they should be. */
  target: KubeObject;
  /** Write `.status` through the status subresource (first). */
  writeStatus: boolean;
  /** Update the object: labels, annotations, the finalizer, and the status when there is no subresource. */
  writeObject: boolean;
}

/**
 * Applies a decorator hook's answer to a copy of `target` and says what must be written: nothing, when
 * nothing changed. No `observedGeneration` is added (docs/hook-protocol.md,
 * "DecoratorController requests").
 */
export function planTargetWrites(target: KubeObject, changes: TargetChanges, options: TargetWriteOptions): TargetWrites {
  const labels = mergeMetadataMap(target.metadata.labels, changes.labels);
  const annotations = mergeMetadataMap(target.metadata.annotations, changes.annotations);
  const metadataChanged = !sameMap(labels, target.metadata.labels) || !sameMap(annotations, target.metadata.annotations);
  const statusChanged = changes.status !== null && !jsonEqual(changes.status, target.status ?? null);
  const finalizers = (target.metadata.finalizers ?? []).filter((f) => !options.removeFinalizer || f !== options.finalizer);
  const decorated: KubeObject = { ...target, metadata: { ...target.metadata, labels, annotations, finalizers } };
  if (changes.status !== null) decorated.status = changes.status;
  const writeStatus = statusChanged && options.statusSubresource;
  const writeObject = metadataChanged || options.removeFinalizer || (statusChanged && !options.statusSubresource);
  return { target: decorated, writeStatus, writeObject };
}
