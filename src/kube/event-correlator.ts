/**
 * Decides how each Event is written, as client-go's event correlator does, so that a controller that
 * keeps failing does not fill etcd with Events:
 * - an event identical to a recent one (same source, object incl. uid, type, reason and message) is not
 *   created again: the Event already written is patched with `count + 1` and a new `lastTimestamp`;
 * - when {@link CorrelatorOptions.maxSimilar} events of one object, type and reason but different
 *   messages occur with no gap longer than {@link CorrelatorOptions.windowMs}, they are written as one
 *   Event whose message is `(combined from similar events): <latest message>`, itself counted as above.
 * Pure apart from its bounded memory: the recorder does the writing and reports back the names the
 * API server gave.
 */
import { LruMap } from '../api/index.ts';

/** The object an event is about, as `involvedObject` names it. */
export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string | undefined;
  uid?: string | undefined;
  resourceVersion?: string | undefined;
}

/** One occurrence to record. */
export interface EventOccurrence {
  involvedObject: InvolvedObject;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  /** When it happened (ms since the epoch): the recorder's writes may wait behind a slow API server. */
  at: number;
}

/** The core/v1 Event body loom creates. */
export interface CoreEventBody {
  apiVersion: 'v1';
  kind: 'Event';
  metadata: { generateName: string; namespace: string };
  involvedObject: InvolvedObject;
  type: string;
  reason: string;
  message: string;
  source: { component: string };
  reportingComponent: string;
  reportingInstance: string;
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
}

/** The fields a repeat changes on the Event already written (a strategic merge patch). */
export interface EventPatch {
  count: number;
  lastTimestamp: string;
  message: string;
}

/**
 * One write. `key` is what the recorder reports back with the created Event's name
 * ({@link EventCorrelator.created}); a `patch` carries the `event` to create instead when the Event to
 * patch is gone (expired after the API server's event TTL, or deleted).
 */
export type EventWrite =
  | { action: 'create'; key: string; event: CoreEventBody }
  | { action: 'patch'; key: string; namespace: string; name: string; patch: EventPatch; event: CoreEventBody };

/** Settings; the defaults are client-go's. */
export interface CorrelatorOptions {
  /** `source.component`, `reportingComponent` and `reportingInstance` of every Event. */
  component: string;
  /** Entries kept per memory (events seen, groups of similar events), least recently used dropped first. */
  cacheSize?: number | undefined;
  /** Different messages of one group at which they are combined. */
  maxSimilar?: number | undefined;
  /** A group whose last event is older than this starts afresh. */
  windowMs?: number | undefined;
}

/** Correlates events; one per recorder. */
export interface EventCorrelator {
  /**
   * The group of similar events `occurrence` belongs to. Writes of one group must not overlap (the
   * recorder serializes them), so each decision sees the names of the Events written before it.
   */
  groupOf(occurrence: EventOccurrence): string;
  /** Counts `occurrence` and says how to write it. */
  correlate(occurrence: EventOccurrence): EventWrite;
  /** The API server created the Event of `key` under `name`: later repeats patch it. */
  created(key: string, name: string): void;
}

/** The message prefix of an Event that stands for several similar ones. */
export const COMBINED_PREFIX = '(combined from similar events): ';
const DEFAULT_CACHE_SIZE = 4096;
const DEFAULT_MAX_SIMILAR = 10;
const DEFAULT_WINDOW_MS = 600_000;
/** Events of cluster-scoped objects go to `default`, as kubectl and client-go do. */
const CLUSTER_EVENTS_NAMESPACE = 'default';
/** Kubernetes rejects longer event messages. */
export const MAX_EVENT_MESSAGE_CHARS = 1024;
const MAX_MESSAGE = MAX_EVENT_MESSAGE_CHARS;

/** Recent messages of one group of similar events. */
interface Group {
  messages: Set<string>;
  last: number;
}

/** What is known of an Event written (or being written) for one key. */
interface Seen {
  count: number;
  firstTimestamp: string;
  /** Unknown until the create answers, or when it failed. */
  name?: string | undefined;
}

/** Creates a correlator. */
export function createEventCorrelator(options: CorrelatorOptions): EventCorrelator {
  const { component } = options;
  const cacheSize = options.cacheSize ?? DEFAULT_CACHE_SIZE;
  const maxSimilar = options.maxSimilar ?? DEFAULT_MAX_SIMILAR;
  const windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
  const groups = new LruMap<Group>(cacheSize);
  const seen = new LruMap<Seen>(cacheSize);

  // The resourceVersion is left out: the object changes between occurrences of the same event.
  const groupOf = ({ involvedObject: o, type, reason }: EventOccurrence): string =>
    JSON.stringify([component, o.apiVersion, o.kind, o.namespace ?? '', o.name, o.uid ?? '', type, reason]);

  /** The message to write and the key it is counted under, after combining similar events. */
  const aggregate = (occurrence: EventOccurrence, now: number): { key: string; message: string } => {
    const groupKey = groupOf(occurrence);
    // Only what the Event can hold tells messages apart (and only that is kept).
    const message = occurrence.message.slice(0, MAX_MESSAGE);
    const found = groups.get(groupKey);
    const group = found && now - found.last <= windowMs ? found : { messages: new Set<string>(), last: now };
    group.messages.add(message);
    group.last = now;
    groups.set(groupKey, group);
    if (group.messages.size < maxSimilar) return { key: JSON.stringify([groupKey, message]), message };
    // Keep the set below the threshold, so each new message goes on being combined while an earlier
    // one that comes again is counted on its own Event.
    group.messages.delete(group.messages.values().next().value!);
    return { key: groupKey, message: `${COMBINED_PREFIX}${message}` };
  };

  return {
    groupOf,
    correlate(occurrence) {
      const time = new Date(occurrence.at).toISOString();
      const { key, message } = aggregate(occurrence, occurrence.at);
      const previous = seen.get(key);
      const current: Seen = previous
        ? { count: previous.count + 1, firstTimestamp: previous.firstTimestamp, name: previous.name }
        : { count: 1, firstTimestamp: time };
      seen.set(key, current);
      const { involvedObject } = occurrence;
      const namespace = involvedObject.namespace ?? CLUSTER_EVENTS_NAMESPACE;
      const text = message.slice(0, MAX_MESSAGE);
      const event: CoreEventBody = {
        apiVersion: 'v1', kind: 'Event',
        metadata: { generateName: `${involvedObject.name}.`, namespace },
        involvedObject, type: occurrence.type, reason: occurrence.reason, message: text,
        source: { component }, reportingComponent: component, reportingInstance: component,
        firstTimestamp: current.firstTimestamp, lastTimestamp: time, count: current.count,
      };
      // A repeat whose first create failed has no Event to patch: it is created with the count so far.
      if (current.name === undefined) return { action: 'create', key, event };
      return { action: 'patch', key, namespace, name: current.name, patch: { count: current.count, lastTimestamp: time, message: text }, event };
    },
    created(key, name) {
      const entry = seen.get(key);
      if (entry) entry.name = name;
    },
  };
}
