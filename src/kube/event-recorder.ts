/**
 * Kubernetes Events about objects (`SyncError` on a parent, `Started` on a controller), written in
 * the background: an event that cannot be written is logged, never allowed to fail a reconcile.
 * Repeats are aggregated as client-go does (see `event-correlator.ts`): an event seen before raises the
 * `count` of the Event already written instead of adding another object to etcd. Writes take their
 * slots from a budget of their own, which drops the events it cannot write in time rather than queue
 * them without end (as client-go's broadcaster drops them when its queue is full).
 */
import type { Logger } from 'pino';
import type { KubeObject } from '../api/object.ts';
import { boundedText } from '../api/bounded-text.ts';
import { createEventCorrelator, MAX_EVENT_MESSAGE_CHARS, type EventWrite } from './event-correlator.ts';
import { isNotFound } from './kube-api-error.ts';
import type { RestClient } from './rest-client.ts';

/** One event to record. */
export interface EventSpec {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/**
 * Why an event was not written: refused by the per-object spam filter (`filtered`), no place left in
 * the budget's line for its kind of object (`queue_full`), or no slot before its wait ran out (`expired`).
 */
export type EventDropReason = 'filtered' | 'queue_full' | 'expired';

/**
 * The slots event writes take (engine's `DroppingThrottle`): a place in the line of one tenant, the
 * involved object's kind, so a storm about one kind of object does not crowd out events about another.
 */
export interface EventBudget {
  /** A place in `tenant`'s line, or `undefined` when it is full. */
  enter(tenant: string): { turn(): Promise<boolean>; leave(): void } | undefined;
}

/** Records events; returns at once. */
export interface EventRecorder {
  record(obj: KubeObject, event: EventSpec): void;
}

/** What the recorder needs. */
export interface EventRecorderOptions {
  client: RestClient;
  /** `source.component` and `reportingComponent`. */
  component: string;
  /** Named on every event written, as on loom's other writes, so `managedFields` do not say `unknown`. */
  fieldManager?: string | undefined;
  now: () => number;
  logger: Logger;
  /**
   * Spam filter: asked with the object's key (`apiVersion/kind/namespace/name`) before each event;
   * `false` drops it (`--events-qps` / `--events-burst`).
   */
  allow?: ((objectKey: string) => boolean) | undefined;
  /** The slots of the writes; absent: every event is written, however long it waits for its turn. */
  budget?: EventBudget | undefined;
  /** Told of each event not written, and why. */
  dropped?: ((reason: EventDropReason) => void) | undefined;
}

/** The place of a write when there is no budget: its turn is always now. */
const UNBUDGETED = { turn: () => Promise.resolve(true), leave: () => undefined };

/** Creates a recorder. */
export function createEventRecorder(options: EventRecorderOptions): EventRecorder {
  const { client, component, logger } = options;
  const query = { fieldManager: options.fieldManager };
  const correlator = createEventCorrelator({ component });
  /** The tail of the writes of each group of similar events still in flight. */
  const inFlight = new Map<string, Promise<void>>();

  const create = async (write: EventWrite): Promise<void> => {
    const { namespace } = write.event.metadata;
    const created = await client.request<{ metadata: { name: string } }>({ method: 'POST', path: `/api/v1/namespaces/${namespace}/events`, query, body: write.event });
    correlator.created(write.key, created.metadata.name);
  };
  const send = async (write: EventWrite): Promise<void> => {
    if (write.action === 'create') return create(write);
    try {
      await client.request({
        method: 'PATCH', path: `/api/v1/namespaces/${write.namespace}/events/${write.name}`, query,
        contentType: 'application/strategic-merge-patch+json', body: write.patch,
      });
    } catch (err) {
      // The Event expired (the API server's event TTL) or was deleted: write it anew.
      if (!isNotFound(err)) throw err;
      await create(write);
    }
  };

  return {
    record(obj, event) {
      const { namespace, name = '', uid, resourceVersion } = obj.metadata;
      if (options.allow && !options.allow(`${obj.apiVersion}/${obj.kind}/${namespace ?? ''}/${name}`)) return options.dropped?.('filtered');
      // The place is held from now, so the events waiting behind their group's write count too.
      const place = options.budget ? options.budget.enter(`${obj.apiVersion}/${obj.kind}`) : UNBUDGETED;
      if (!place) return options.dropped?.('queue_full');
      // Cut at once, saying how much: a huge message is neither kept while the write waits nor remembered.
      const occurrence = { ...event, message: boundedText(event.message, MAX_EVENT_MESSAGE_CHARS), at: options.now(), involvedObject: { apiVersion: obj.apiVersion, kind: obj.kind, name, namespace, uid, resourceVersion } };
      // One write at a time per group of similar events: a repeat is decided only once the write before
      // it has answered, so it patches the Event that write created rather than creating a second one.
      const group = correlator.groupOf(occurrence);
      const write = (inFlight.get(group) ?? Promise.resolve())
        .then(async () => {
          // Dropped before it is counted: as far as the Event written says, it never happened.
          if (await place.turn()) await send(correlator.correlate(occurrence));
          else options.dropped?.('expired');
        })
        .catch((err: unknown) => logger.warn({ err, reason: event.reason, object: `${namespace ?? ''}/${name}` }, 'could not record event'))
        .finally(() => {
          place.leave();
          if (inFlight.get(group) === write) inFlight.delete(group);
        });
      inFlight.set(group, write);
    },
  };
}
