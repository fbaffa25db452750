/**
 * The writes of the children's lifecycle policies (docs/ordering-and-readiness.md, "Per-child lifecycle
 * policies"): releasing a child by its `deletionPolicy`, and replacing one whose update the API server
 * refused for an immutable field (`onImmutableChange: Recreate`).
 */
import type { ChildDecision } from '../core/index.ts';
import { isConflict, isInvalid, isNotFound } from '../kube/index.ts';
import { childKey } from './applied-records.ts';
import type { ExecutePlanOptions } from './execute-plan.ts';
import { objectRefOf } from './object-ref.ts';
import { checkValidAsNew } from './recreate-checks.ts';

type PolicyOptions = Pick<ExecutePlanOptions, 'writer' | 'fieldManager' | 'records' | 'logger'>;

/**
 * How kube-apiserver words a refused change of a field that cannot change: `field is immutable`
 * (`ValidateImmutableField`, a Job's `spec.template`, a Deployment's `spec.selector`, a CRD's
 * `self == oldSelf` rule saying "Value is immutable"), `field is immutable when \`immutable\` is set` (a
 * ConfigMap or Secret), `spec is immutable after creation …` (a PersistentVolumeClaim), `may not change
 * once set` (a Service's `clusterIPs`, `ipFamilies`, `loadBalancerClass`) and `updates to statefulset spec
 * for fields other than … are forbidden`.
 */
const IMMUTABLE_WORDING = /\bimmutable\b|may not change once set|updates to statefulset spec for fields other than/i;

/** Whether `err` is the API server refusing an update because it changes a field that cannot change (422 Invalid, worded so). */
export function isImmutableFieldRefusal(err: unknown): boolean {
  return isInvalid(err) && err instanceof Error && IMMUTABLE_WORDING.test(err.message);
}

/**
 * Releases a child by its deletion policy: PUT of the child without the parent's owner reference.
 * NotFound (gone already) and Conflict (the cache was behind) mean the next sync, which the watch
 * event brings, decides again. Resolves whether it wrote.
 */
export async function releaseChild(options: PolicyOptions, decision: Extract<ChildDecision, { action: 'release' }>): Promise<boolean> {
  options.records.delete(childKey(decision.child));
  try {
    await options.writer.replace(decision.object);
    return true;
  } catch (err) {
    if (isNotFound(err) || isConflict(err)) return false;
    throw err;
  }
}

/**
 * After an in-place update failed with `refusal`: with `onImmutableChange: Recreate` and an immutable-field
 * refusal, deletes that one child (UID precondition, so a namesake created since is never deleted) once
 * its desired state has passed a dry-run create; the delete event brings the sync that creates it anew.
 * Any other failure is thrown as it came, so the sync fails with the API server's words. Its outcome
 * says `replaced`: the child is gone until a later sync creates it, whatever the delete answered.
 */
export async function recreateIfImmutable(options: PolicyOptions, decision: Extract<ChildDecision, { action: 'update' }>, refusal: unknown): Promise<boolean> {
  const recreate = decision.recreateIfImmutable;
  if (!recreate || !isImmutableFieldRefusal(refusal)) throw refusal;
  const { child } = decision;
  await checkValidAsNew(options, { action: 'recreate', child, uid: recreate.uid, desired: recreate.desired });
  options.logger.info({ child: `${child.kind} ${child.namespace}/${child.name}`, refusal: String(refusal) }, 'recreating a child whose update changes an immutable field');
  options.records.delete(childKey(child));
  return options.writer.delete(objectRefOf(child), { uid: recreate.uid, propagationPolicy: 'Background' });
}
