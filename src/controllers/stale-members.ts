/**
 * Which member Leases of a shard group belong to replicas gone long ago, so a live member may delete
 * them: every start of a replica makes a member Lease of its own (its identity is new), and without
 * this they would pile up forever. A Lease counts as gone only long after it expired — several Lease
 * durations — never when merely expired: a member that has not renewed for its renew deadline has
 * stopped its controllers by itself, and one silent for several durations is no slow replica about to
 * renew. The delete that follows names the version judged (`resourceVersion`), so a renewal in between
 * makes the API server refuse it.
 */
import type { Logger } from 'pino';
import { isConflict, type ObjectWriter } from '../kube/index.ts';
import type { Lease } from './lease.ts';

/** Lease durations a member Lease must have gone without renewal before it is deleted. */
export const STALE_AFTER_LEASES = 5;

/** What the judgement is made against. */
export interface StaleMembersInput {
  /** The group's name: its member Leases are `<group>-member-…`. */
  group: string;
  /** This replica's own member Lease, never stale. */
  ownLease: string;
  now: number;
  /** This replica's Lease duration; a member's own counts when it is longer. */
  leaseDurationMs: number;
}

/**
 * When `lease` was last renewed: its `renewTime`, else its `acquireTime`, else its creation (a member
 * writes both times with each renewal; the creation only counts for a Lease that never had them).
 * `undefined` when none can be read.
 */
function lastRenewal(lease: Lease): number | undefined {
  const time = lease.spec?.renewTime ?? lease.spec?.acquireTime ?? lease.metadata.creationTimestamp;
  const parsed = Date.parse(time ?? '');
  return Number.isFinite(parsed) ? parsed : undefined;
}

/** The member Leases among `leases` last renewed more than {@link STALE_AFTER_LEASES} Lease durations ago. */
export function staleMembers(leases: readonly Lease[], input: StaleMembersInput): Lease[] {
  return leases.filter((lease) => {
    const name = lease.metadata.name ?? '';
    if (!name.startsWith(`${input.group}-member-`) || name === input.ownLease) return false;
    const seen = lastRenewal(lease);
    const durationMs = Math.max(input.leaseDurationMs, (lease.spec?.leaseDurationSeconds ?? 0) * 1000);
    return seen !== undefined && input.now - seen > STALE_AFTER_LEASES * durationMs;
  });
}

/**
 * Deletes the {@link staleMembers} of `leases`, each only at the version judged (its UID and
 * `resourceVersion`): one renewed since, or deleted by another replica first, is left as it is. A
 * failure only leaves the Lease for a later round.
 */
export async function removeStaleMembers(writer: ObjectWriter, leases: readonly Lease[], input: StaleMembersInput & { logger: Logger }): Promise<void> {
  await Promise.all(staleMembers(leases, input).map(async (lease) => {
    const { name = '', namespace, uid, resourceVersion } = lease.metadata;
    try {
      // Items of a list carry no apiVersion or kind of their own.
      if (await writer.delete({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace, name }, { uid, resourceVersion })) {
        input.logger.info({ lease: name, holder: lease.spec?.holderIdentity }, 'sharding: deleted the member Lease of a replica gone long ago');
      }
    } catch (err) {
      // Conflict: renewed (or replaced) since it was read; it is judged again from the next list.
      if (!isConflict(err)) input.logger.warn({ err, lease: name }, 'sharding: could not delete the member Lease of a replica gone long ago');
    }
  }));
}
