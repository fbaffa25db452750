/**
 * The controllers loom runs: the meta controller (one running controller per CompositeController or
 * DecoratorController object), the two controller kinds and what they share. Only `main.ts` and `cli/` import
 * this folder.
 */
export { runMetaController, type MetaControllerOptions } from './meta-controller.ts';
export type { RunningController } from './controller-loop.ts';
export { acquireLeadership, holdLeadership, releaseLeadership, type LeaderElectionOptions } from './leader-election.ts';
export { eventFilter } from './event-filter.ts';
export { eventDropReport } from './event-drops.ts';
export { requestBudgets, type RequestBudgets } from './request-budgets.ts';
export { memberLeaseName, runShardMember, SHARD_GROUP_LABEL, type ShardMembershipOptions } from './shard-membership.ts';
export { shardScope } from './shard-scope.ts';
export type { Lease } from './lease.ts';
export { tracedWriter } from './traced-ports.ts';
export { controllerWriter, tenantWriters, type ControllerWriter } from './controller-writer.ts';
export { ResourceNotFoundError, type Host, type HostSettings } from './host.ts';
