/**
 * One CompositeController per parent: two controllers that would both sync some parent fight forever
 * (each creates the children it wants and deletes the other's, and the parent's status flips). So a
 * controller runs only while no running controller claims a parent it would claim: the same parent
 * type (group and resource; the version does not matter) and `parentResource.labelSelector`s that
 * could match the same parent. Provably disjoint selectors (`mode=a` and `mode=b`) share a type.
 */
import { groupOf, selectorsDisjoint, type LabelSelector } from '../api/index.ts';

/** What a controller claims: the parents of one type that its selector matches. */
export interface ParentClaim {
  /** The controller's name. */
  name: string;
  apiVersion: string;
  resource: string;
  /** `parentResource.labelSelector`; absent: every parent of the type. */
  selector: LabelSelector | undefined;
}

/** Whether the two claims name the same parent type. */
export function sameParentType(a: Pick<ParentClaim, 'apiVersion' | 'resource'>, b: Pick<ParentClaim, 'apiVersion' | 'resource'>): boolean {
  return a.resource === b.resource && groupOf(a.apiVersion) === groupOf(b.apiVersion);
}

/** The first of `held` (claims of running controllers) that could share a parent with `candidate`, other than its own. */
export function conflictingClaim(candidate: ParentClaim, held: Iterable<ParentClaim>): ParentClaim | undefined {
  for (const claim of held) {
    if (claim.name !== candidate.name && sameParentType(claim, candidate) && !selectorsDisjoint(claim.selector, candidate.selector)) return claim;
  }
  return undefined;
}
