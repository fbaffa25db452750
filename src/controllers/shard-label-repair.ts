/**
 * Corrects the shard labels that would hide objects (docs/sharding.md, "Labels cannot hide objects").
 *
 * A replica's watches select on the `loom.dev/shard` label, but whose an object is follows from a UID:
 * a parent's (or decorator target's) own, a child's (or attachment's) controller's. The label is only
 * loom's to write, yet anyone who may write the object can set it. Why a wrong label can hide nothing:
 * - An absent label, or a value that names no bucket (`"x"`, `"05"`, one out of range), is in no
 *   replica's `notin` list, so every replica receives the object, and the holder of its true bucket
 *   keeps it by UID (a parent is then labelled before its sync, a child by the sync's next write).
 * - A label naming bucket `b` reaches exactly the replica holding `b`. If `b` is the true bucket, that
 *   is the holder. If not, that replica keeps the object all the same and writes the true bucket on
 *   it (here); the API server then ends the object's place in its watch and sends it to the holder's.
 *   A bucket nobody holds for a moment (a handover) is taken within one retry period, and the new
 *   holder lists its caches afresh, so it finds the object then.
 * - A correction is the holder's own labelling ({@link writeShardLabel}: one label, its own field
 *   manager, the object's UID named, so neither a namesake nor a deleted object is written), and it
 *   writes the same value, a function of the UID alone: the holder's labelling and any replica's
 *   correction agree, and neither depends on who holds which bucket at the time. An author who
 *   writes the wrong label again makes a new event, and it is corrected again.
 * - The decision is read again from the cache when the correction runs, so a label already fixed,
 *   and thus gone from this replica's watch, costs no write.
 * An object that one controller takes as a parent and another's parent owns would need two labels: it
 * keeps its label as a parent, and the child rule leaves it alone, so that two replicas never write
 * the label back and forth.
 */
import type { Logger } from 'pino';
import { controllerRefOf, groupOf, type KubeObject } from '../api/index.ts';
import { SHARD_LABEL, shardLabelDecision, type ShardRole } from '../core/index.ts';
import { runWorkers, WorkQueue, type Reconciler } from '../engine/index.ts';
import { storeKey, type InformerLease, type ResourceType } from '../kube/index.ts';
import type { Host } from './host.ts';
import { writeShardLabel, type ShardScope } from './shard-scope.ts';

/** One informer of a controller whose objects the repair corrects. */
export interface RepairSource {
  lease: InformerLease;
  role: ShardRole;
  /**
   * Whether the controller has a say on `obj` in this role: a parent it selects, or a child whose
   * controller is of its parent type. Nothing else is written, whatever its label.
   */
  concerns(obj: KubeObject): boolean;
}

/** A running repair. */
export interface ShardLabelRepair {
  /** Undoes the subscriptions and aborts the correction in flight; resolves once the worker has ended. */
  stop(): Promise<void>;
}

/** One object to look at: which source's cache it is in, and its key there. */
interface RepairKey {
  source: number;
  key: string;
}

/** The bucket to write on `obj` delivered by `source`, or `undefined` when its label is to be left. */
type Relabel = (source: RepairSource, obj: KubeObject) => string | undefined;

/** Starts correcting what `sources` deliver with a wrong label; a no-op without sharding. */
export function startShardLabelRepair(host: Host, sources: readonly RepairSource[], logger: Logger): ShardLabelRepair {
  const { shard } = host;
  if (!shard) return { stop: () => Promise.resolve() };
  const relabelOf: Relabel = (source, obj) =>
    source.concerns(obj) && (source.role === 'parent' || !shard.parents.takes(obj)) ? shardLabelDecision(obj, source.role, shard).relabel : undefined;
  const queue = new WorkQueue<RepairKey>({ clock: host.clock, keyOf: ({ source, key }) => `${source} ${key}` });
  const undo = sources.flatMap((source, index) => {
    const look = (obj: KubeObject): void => {
      if (relabelOf(source, obj) !== undefined) queue.add({ source: index, key: storeKey(obj) });
    };
    const unsubscribe = source.lease.informer.subscribe({ onAdd: look, onUpdate: (_, obj) => look(obj) });
    return source.role === 'parent' ? [unsubscribe, registerParents(shard, source)] : [unsubscribe];
  });
  const stopping = new AbortController();
  const workers = runWorkers({
    queue, workers: 1, signal: stopping.signal, clock: host.clock,
    reconciler: corrector(host, sources, relabelOf, logger),
    onOutcome: (outcome) => {
      // A correction given up because the repair stops is no failure.
      if (outcome.result === 'error' && !stopping.signal.aborted) logger.warn({ err: outcome.error, object: outcome.key.key }, 'correcting a shard label failed; retrying');
    },
  });
  return {
    async stop() {
      for (const off of undo) off();
      stopping.abort();
      await workers;
    },
  };
}

/**
 * Corrects the label of the object a key names, as the cache holds it when its turn comes (a label
 * fixed meanwhile costs no write); `signal`, the repair's stop, gives the write up.
 */
function corrector(host: Host, sources: readonly RepairSource[], relabelOf: Relabel, logger: Logger): Reconciler<RepairKey> {
  return {
    async reconcile({ source, key }, signal) {
      const from = sources[source]!;
      const obj = from.lease.informer.store.get(key);
      const relabel = obj && relabelOf(from, obj);
      if (!obj || relabel === undefined) return {};
      await writeShardLabel(host, from.lease.informer.type, obj, { value: relabel, signal });
      logger.info({ object: `${obj.kind} ${storeKey(obj)}`, from: obj.metadata.labels?.[SHARD_LABEL], to: relabel }, 'corrected a shard label that hid the object from the holder of its bucket');
      return {};
    },
  };
}

/** Whether the controller of `obj` is of one of `types`: a child source's test (its parent types). */
export function controlledByOneOf(types: readonly ResourceType[]): (obj: KubeObject) => boolean {
  return (obj) => {
    const owner = controllerRefOf(obj);
    return owner !== undefined && types.some((type) => isOfType(owner, type));
  };
}

function isOfType(obj: { apiVersion: string; kind: string }, type: ResourceType): boolean {
  return obj.kind === type.kind && groupOf(obj.apiVersion) === groupOf(type.apiVersion);
}

/** Registers what a parent source's controller takes as parents: its parent type's objects that it selects. */
function registerParents(shard: ShardScope, source: RepairSource): () => void {
  const { type } = source.lease.informer;
  return shard.parents.register((obj) => isOfType(obj, type) && source.concerns(obj));
}

