/**
 * Which member Leases of a shard group belong to replicas gone long ago, so a live member may delete
 * them: every start of a replica makes a member Lease of its own (its identity is new), and without
 * this they would pile up forever. As client-go's leader election judges a Lease, this judges what
 * this replica saw, on its own clock, never the times a member wrote (by a clock that may be behind):
 * a member Lease is gone once its `resourceVersion` has not changed for several Lease durations since
 * this replica first saw it at that version. Several durations, not one: a member that has not
 * renewed for its renew deadline has stopped its controllers by itself, and one silent that long is
 * no slow replica about to renew. The delete that follows names the version judged
 * (`resourceVersion`), so a renewal in between makes the API server refuse it.
 */
import type { Logger } from 'pino';
import { isConflict, type ObjectWriter } from '../kube/index.ts';
import type { Lease } from './lease.ts';

/** Lease durations a member Lease must have gone unchanged, as this replica saw it, before it is deleted. */
export const STALE_AFTER_LEASES = 5;

/** A member Lease's version, and when (this replica's clock) it was first seen at it. */
export interface MemberSighting {
  resourceVersion: string;
  since: number;
}

/** The sightings of the group's member Leases, by name. */
export type MemberSightings = ReadonlyMap<string, MemberSighting>;

/** What the judgement is made against. */
export interface StaleMembersInput {
  /** The group's name: its member Leases are `<group>-member-…`. */
  group: string;
  /** This replica's own member Lease, never stale. */
  ownLease: string;
  /** This replica's clock. */
  now: number;
  /** This replica's Lease duration; a member's own counts when it is longer. */
  leaseDurationMs: number;
}

function otherMember(lease: Lease, input: Pick<StaleMembersInput, 'group' | 'ownLease'>): boolean {
  const name = lease.metadata.name ?? '';
  return name.startsWith(`${input.group}-member-`) && name !== input.ownLease;
}

/**
 * The sightings after listing `leases` at `input.now`: a member Lease at the version seen before keeps
 * its time; one first seen, or at another version (renewed, or replaced), is seen from now. Leases no
 * longer listed are forgotten.
 */
export function sightMembers(previous: MemberSightings, leases: readonly Lease[], input: StaleMembersInput): Map<string, MemberSighting> {
  const next = new Map<string, MemberSighting>();
  for (const lease of leases) {
    const { name = '', resourceVersion } = lease.metadata;
    if (!otherMember(lease, input) || resourceVersion === undefined) continue;
    const before = previous.get(name);
    next.set(name, before?.resourceVersion === resourceVersion ? before : { resourceVersion, since: input.now });
  }
  return next;
}

/**
 * The member Leases among `leases` that `sightings` (see {@link sightMembers}) show unchanged for more
 * than {@link STALE_AFTER_LEASES} Lease durations, at the version listed.
 */
export function staleMembers(leases: readonly Lease[], sightings: MemberSightings, input: StaleMembersInput): Lease[] {
  return leases.filter((lease) => {
    if (!otherMember(lease, input)) return false;
    const seen = sightings.get(lease.metadata.name ?? '');
    if (!seen || seen.resourceVersion !== lease.metadata.resourceVersion) return false;
    const durationMs = Math.max(input.leaseDurationMs, (lease.spec?.leaseDurationSeconds ?? 0) * 1000);
    return input.now - seen.since > STALE_AFTER_LEASES * durationMs;
  });
}

/**
 * Records this list of `leases` in `input.sightings` ({@link sightMembers}), and deletes the
 * {@link staleMembers}, each only at the version judged (its UID and `resourceVersion`), given up when
 * `signal` aborts: one renewed since, or deleted by another replica first, is left as it is. A failure
 * only leaves the Lease for a later round. Resolves with the sightings to pass to the next round.
 */
export async function removeStaleMembers(
  writer: ObjectWriter, leases: readonly Lease[], input: StaleMembersInput & { sightings: MemberSightings; logger: Logger; signal?: AbortSignal | undefined },
): Promise<MemberSightings> {
  const sightings = sightMembers(input.sightings, leases, input);
  await Promise.all(staleMembers(leases, sightings, input).map(async (lease) => {
    const { name = '', namespace, uid, resourceVersion } = lease.metadata;
    try {
      // Items of a list carry no apiVersion or kind of their own.
      if (await writer.delete({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace, name }, { uid, resourceVersion, signal: input.signal })) {
        input.logger.info({ lease: name, holder: lease.spec?.holderIdentity }, 'sharding: deleted the member Lease of a replica gone long ago');
      }
    } catch (err) {
      // Conflict: renewed (or replaced) since it was read; it is judged again from the next list.
      if (!isConflict(err)) input.logger.warn({ err, lease: name }, 'sharding: could not delete the member Lease of a replica gone long ago');
    }
  }));
  return sightings;
}
