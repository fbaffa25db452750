/**
 * One CompositeController per parent: two controllers that would both sync some parent fight forever
 * (each creates the children it wants and deletes the other's, and the parent's status flips). So
 * controllers naming the same parent type (group and resource; the version does not matter) are
 * ranked, oldest first (by creation time, then name), and each one runs only if it cannot share a
 * parent with a higher-ranked one that runs. Controllers whose `parentResource.labelSelector`s are
 * provably disjoint (`mode=a` and `mode=b`) share a type without conflict.
 */
import { groupOf, selectorsDisjoint, type LabelSelector } from '../api/index.ts';

/** What a controller claims: the parents of one type that its selector matches. */
export interface ParentClaim {
  /** The controller's name. */
  name: string;
  /** `metadata.creationTimestamp` (RFC 3339, so strings sort by time); absent sorts last. */
  createdAt: string | undefined;
  apiVersion: string;
  resource: string;
  /** `parentResource.labelSelector`; absent: every parent of the type. */
  selector: LabelSelector | undefined;
}

/** Whether the two claims name the same parent type. */
export function sameParentType(a: Pick<ParentClaim, 'apiVersion' | 'resource'>, b: Pick<ParentClaim, 'apiVersion' | 'resource'>): boolean {
  return a.resource === b.resource && groupOf(a.apiVersion) === groupOf(b.apiVersion);
}

function conflicts(a: ParentClaim, b: ParentClaim): boolean {
  return sameParentType(a, b) && !selectorsDisjoint(a.selector, b.selector);
}

function ranksBefore(a: ParentClaim, b: ParentClaim): number {
  const at = (c: ParentClaim) => c.createdAt ?? '\uffff';
  return at(a) < at(b) ? -1 : at(a) > at(b) ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * The controller that serves `candidate`'s parents instead of it, or `undefined` when the candidate
 * may run. `claims` holds every controller (the candidate's own entry is ignored). Controllers are
 * taken in rank order, each kept unless it conflicts with one kept before it, so a controller that is
 * itself outranked does not block a third one.
 */
export function parentOwner(candidate: ParentClaim, claims: readonly ParentClaim[]): ParentClaim | undefined {
  const ranked = [...claims.filter((c) => c.name !== candidate.name && sameParentType(c, candidate)), candidate].sort(ranksBefore);
  const kept: ParentClaim[] = [];
  for (const claim of ranked) {
    const owner = kept.find((k) => conflicts(k, claim));
    if (claim === candidate) return owner;
    if (owner === undefined) kept.push(claim);
  }
  return undefined;
}
