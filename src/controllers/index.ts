/**
 * The controllers loom runs: the meta controller (one engine per CompositeController object) and the
 * CompositeController engine, with what they share. Only `main.ts` and `cli/` import this folder.
 */
export { runMetaController, type MetaControllerOptions } from './meta-controller.ts';
export { startCompositeController } from './composite/composite-controller.ts';
export type { RunningController } from './engine-loop.ts';
export { acquireLeadership, holdLeadership, releaseLeadership, type LeaderElectionOptions } from './leader-election.ts';
export { eventFilter } from './event-filter.ts';
export { ResourceNotFoundError, type Host, type HostSettings } from './host.ts';
