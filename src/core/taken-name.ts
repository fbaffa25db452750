/**
 * What an object found under a desired child's name is to its parent, once the API server has refused
 * to create the child because the name is taken. Pure.
 *
 * A create is planned only for a child the parent has not claimed, so the object is either the
 * parent's own, seen late by the cache (the watch event that follows brings a sync that claims it,
 * adopts it or releases it by the usual rules), or one loom must not take over. Metacontroller creates
 * with a `POST` and leaves such an object alone; so does loom, in both apply strategies, and says why.
 */
import { formatSelector, matchesSelector, type LabelSelector } from '../api/label-selector.ts';
import { controllerRefOf, type KubeObject } from '../api/object.ts';
import type { AdoptPolicy } from '../api/controller-spec.ts';
import { claimChildren } from './claim.ts';
import { isReleasedFrom, unmarkedChild } from './policy-release.ts';
import { isAttachmentOf } from './decorator.ts';

/**
 * Why a CompositeController parent cannot make `existing` its child, as a clause to follow
 * "<Kind> <namespace>/<name> already exists and …"; `undefined` when it is the parent's already (its
 * controller reference carries the parent's UID) or an orphan the parent adopts by the claim rules of
 * `claimChildren`: the next sync then takes it in.
 */
export function whyNotChild(options: { parent: KubeObject; selector: LabelSelector; existing: KubeObject; adopt?: AdoptPolicy | undefined }): string | undefined {
  const { parent, selector, existing, adopt } = options;
  const controller = controllerRefOf(existing);
  if (controller && controller.uid === parent.metadata.uid) return undefined;
  if (claimChildren({ parent, selector, candidates: [existing], adopt }).adopt.length > 0) return undefined;
  if (controller) return `is not controlled by this parent (controller: ${controller.kind} ${controller.name})`;
  if (!matchesSelector(selector, existing.metadata.labels)) return `has no controller and does not match the selector ${formatSelector(selector)}`;
  return whyNotAdopted(parent, existing, adopt);
}

/**
 * A child this parent released by its deletion policy (`policy-release.ts`) that the hook's answer
 * names again: the object to write to take it back, `existing` without the released marker, which the
 * claim of the sync its event brings then adopts by the selector as any orphan; `undefined` when it is
 * not such a child, or the claim rules would not adopt it even unmarked. The marker only keeps the
 * selector from adopting a released child the answer does not want.
 */
export function reclaimedChild(options: { parent: KubeObject; selector: LabelSelector; existing: KubeObject; adopt?: AdoptPolicy | undefined }): KubeObject | undefined {
  const { parent, selector, existing, adopt } = options;
  if (!isReleasedFrom(existing, parent.metadata.uid)) return undefined;
  const unmarked = unmarkedChild(existing);
  return claimChildren({ parent, selector, candidates: [unmarked], adopt }).adopt.length > 0 ? unmarked : undefined;
}

/** Why a matching object without a controller is not adopted. */
function whyNotAdopted(parent: KubeObject, existing: KubeObject, adopt: AdoptPolicy | undefined): string {
  if (existing.metadata.deletionTimestamp) return 'has no controller and is being deleted';
  if (parent.metadata.deletionTimestamp) return 'has no controller, and a parent being deleted adopts nothing';
  if (isReleasedFrom(existing, parent.metadata.uid)) return 'was released by this parent (its deletionPolicy), which never adopts it again';
  if (adopt === 'Never') return 'has no controller, and its child type says adopt: Never';
  return 'is outside the parent\'s namespace';
}

/**
 * Why a DecoratorController cannot make `existing` an attachment of `target`, as a clause to follow
 * "<Kind> <namespace>/<name> already exists and …"; `undefined` when it already is one (the cache was
 * behind). A decorator never adopts: its attachments are only the objects it created.
 */
export function whyNotAttachment(options: { target: KubeObject; controllerName: string; existing: KubeObject }): string | undefined {
  const { target, controllerName, existing } = options;
  if (isAttachmentOf(existing, target, controllerName)) return undefined;
  const controller = controllerRefOf(existing);
  if (!controller) return 'has no controller (a DecoratorController adopts nothing)';
  if (controller.uid !== target.metadata.uid) return `is not controlled by this target (controller: ${controller.kind} ${controller.name})`;
  return `is controlled by this target but is not an attachment of DecoratorController ${controllerName}`;
}
