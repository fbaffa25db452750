/**
 * `coordination.k8s.io/v1` Leases as leader election and sharding use them: who holds one, and until
 * when. A Lease is alive while its last renewal is within its duration, judged by this replica's clock
 * (as client-go judges it).
 */
import type { KubeObject } from '../api/index.ts';

/** The fields of a Lease's spec that loom reads and writes. */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export type Lease = KubeObject & { spec?: LeaseSpec };

/** Kubernetes MicroTime: RFC 3339 with microseconds. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Who holds `lease` at `now`: its holder, when it has one and renewed the Lease within its duration. */
export function liveHolder(lease: Lease | undefined, now: number): string | undefined {
  const spec = lease?.spec;
  if (!spec?.holderIdentity) return undefined;
  const renewed = Date.parse(spec.renewTime ?? spec.acquireTime ?? '');
  return Number.isFinite(renewed) && renewed + (spec.leaseDurationSeconds ?? 0) * 1000 > now ? spec.holderIdentity : undefined;
}
