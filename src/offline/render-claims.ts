/**
 * Which `--observed` objects loom would treat as the parent's children (docs/concepts.md,
 * "Claiming and adoption"), with loom's own claim rules: the parent's controlled children that match its
 * selector are claimed, matching orphans adopted (and then shown to the hook like the others),
 * controlled children that stopped matching released. A decorator never adopts: its attachments are the
 * objects the target controls that carry the decorator's annotation. Every observed object that is not
 * claimed gets a line saying what loom does with it and why.
 */
import { controllerRefOf, objectKey, type KubeObject, type LabelSelector } from '../api/index.ts';
import { adoptedChild, claimChildren, isAttachmentOf } from '../core/index.ts';
import type { ResolvedType } from './render-types.ts';

/** What happens to an observed object that is not simply claimed. */
export interface ClaimEntry {
  child: string;
  action: 'adopt' | 'release' | 'ignore';
  reason: string;
}

/** The children the hook sees, and the claim lines. */
export interface Claims {
  observed: KubeObject[];
  claims: ClaimEntry[];
}

function describe(obj: KubeObject): string {
  return `${obj.kind} ${objectKey(obj.metadata.namespace, obj.metadata.name ?? '')}`;
}

function ofDeclaredType(obj: KubeObject, types: readonly ResolvedType[]): boolean {
  return types.some((t) => t.apiVersion === obj.apiVersion && t.kind === obj.kind);
}

function notDeclared(obj: KubeObject): ClaimEntry {
  return { child: describe(obj), action: 'ignore', reason: 'not of a declared child type' };
}

/** Why the claim rules leave `child` alone. */
function ignoredReason(child: KubeObject, parent: KubeObject): string {
  const namespace = parent.metadata.namespace;
  if (namespace && child.metadata.namespace !== namespace) return `not in the parent's namespace ${namespace}`;
  const ref = controllerRefOf(child);
  if (ref && ref.uid !== parent.metadata.uid) return `controlled by ${ref.kind} ${ref.name}`;
  if (parent.metadata.deletionTimestamp) return 'the parent is being deleted: loom neither adopts nor releases then';
  if (child.metadata.deletionTimestamp) return 'being deleted';
  return 'its labels do not match the parent selector';
}

/** The claims of a CompositeController parent over the observed objects of its child types. */
export function compositeClaims(input: { parent: KubeObject; selector: LabelSelector; observed: readonly KubeObject[]; types: readonly ResolvedType[] }): Claims {
  const { parent, types } = input;
  const candidates = input.observed.filter((obj) => ofDeclaredType(obj, types));
  const result = claimChildren({ parent, selector: input.selector, candidates });
  const adopted = result.adopt.map((child) => adoptedChild({ parent, child })).filter((child) => child !== undefined);
  return {
    observed: [...result.claimed, ...adopted],
    claims: [
      ...input.observed.filter((obj) => !ofDeclaredType(obj, types)).map(notDeclared),
      ...result.adopt.map((obj): ClaimEntry => ({ child: describe(obj), action: 'adopt', reason: 'an orphan that matches the parent selector' })),
      ...result.release.map((obj): ClaimEntry => ({ child: describe(obj), action: 'release', reason: 'its labels no longer match the parent selector' })),
      ...result.ignored.map((obj): ClaimEntry => ({ child: describe(obj), action: 'ignore', reason: ignoredReason(obj, parent) })),
    ],
  };
}

/** The attachments of a decorator's target among the observed objects of its attachment types. */
export function decoratorClaims(input: { target: KubeObject; controllerName: string; observed: readonly KubeObject[]; types: readonly ResolvedType[] }): Claims {
  const { target, controllerName, types } = input;
  const attached = (obj: KubeObject): boolean => ofDeclaredType(obj, types) && isAttachmentOf(obj, target, controllerName);
  return {
    observed: input.observed.filter(attached),
    claims: input.observed.filter((obj) => !attached(obj)).map((obj) => (ofDeclaredType(obj, types)
      ? { child: describe(obj), action: 'ignore', reason: 'not an attachment of this target (a decorator never adopts)' }
      : notDeclared(obj))),
  };
}
