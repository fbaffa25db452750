/**
 * The checks before a Recreate (docs/concepts.md, "Update methods") deletes a child: with server-side
 * apply, whether a dry-run apply shows there is nothing to recreate; in both strategies, whether the
 * desired child passes a dry-run create, so an invalid desired state never deletes anything.
 */
import { canonicalJson, type KubeObject } from '../api/index.ts';
import { appliedRecordOf, fingerprintOf, sanitizeForApply, type ChildDecision } from '../core/index.ts';
import { isAlreadyExists, isInvalid } from '../kube/index.ts';
import { childKey } from './applied-records.ts';
import type { ExecutePlanOptions } from './execute-plan.ts';

/** What the checks write with and where an unchanged child's record goes. */
type CheckOptions = Pick<ExecutePlanOptions, 'writer' | 'fieldManager' | 'records'>;
type Recreate = Extract<ChildDecision, { action: 'recreate' }>;

/**
 * An object without status and server-set metadata (docs/concepts.md,
 * "What loom removes from desired children"), so a dry run is compared on content: a status update by
 * the child's own controller is no reason to recreate it.
 */
function comparable(obj: KubeObject): string {
  return canonicalJson(sanitizeForApply(obj));
}

/**
 * Server-side apply only: whether a dry-run apply of the desired state leaves the observed child as it
 * is, so there is nothing to recreate (the decision only means "the apply record does not vouch for
 * it"). A 422 answers no: the change cannot be made in place, typically an immutable field, which is
 * what Recreate is for (or the desired state is invalid, which {@link checkValidAsNew} tells).
 */
export async function unchangedByDryRun(options: CheckOptions, decision: Recreate, observed: KubeObject | undefined): Promise<boolean> {
  let dryRun: KubeObject;
  try {
    dryRun = await options.writer.apply(decision.desired, { fieldManager: options.fieldManager, dryRun: true });
  } catch (err) {
    if (isInvalid(err)) return false;
    throw new Error(`the dry run of desired ${decision.child.kind} ${decision.child.name} failed, so the old one was kept`, { cause: err });
  }
  if (!observed || dryRun.metadata.uid !== observed.metadata.uid || comparable(dryRun) !== comparable(observed)) return false;
  // Remember it, so the next sync skips even the dry run.
  const record = appliedRecordOf(observed, fingerprintOf(decision.desired));
  if (record) options.records.set(childKey(decision.child), record);
  return true;
}

/**
 * Throws unless the desired child is valid as a new object: a dry-run create runs validation and
 * admission, then finds the old child's name taken (409 AlreadyExists), which is the answer wanted.
 * An update would be the wrong check: it refuses the immutable-field changes that Recreate exists for.
 */
export async function checkValidAsNew(options: CheckOptions, decision: Recreate): Promise<void> {
  try {
    await options.writer.create(sanitizeForApply(decision.desired), { dryRun: true });
  } catch (err) {
    if (isAlreadyExists(err)) return;
    throw new Error(`the desired ${decision.child.kind} ${decision.child.name} failed a dry-run create, so the old one was kept`, { cause: err });
  }
}
