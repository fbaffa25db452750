/**
 * Kubernetes Events about objects (`SyncError` on a parent, `Started` on a controller), written in
 * the background: an event that cannot be written is logged, never allowed to fail a reconcile.
 */
import type { Logger } from 'pino';
import type { KubeObject } from '../api/object.ts';
import type { RestClient } from './rest-client.ts';

/** One event to record. */
export interface EventSpec {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
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
}

/** Events of cluster-scoped objects go to `default`, as kubectl and client-go do. */
const CLUSTER_EVENTS_NAMESPACE = 'default';
/** Kubernetes rejects longer event messages. */
const MAX_MESSAGE = 1024;

/** Creates a recorder. */
export function createEventRecorder(options: EventRecorderOptions): EventRecorder {
  const { client, component, logger } = options;
  return {
    record(obj, event) {
      const { namespace, name = '', uid, resourceVersion } = obj.metadata;
      if (options.allow && !options.allow(`${obj.apiVersion}/${obj.kind}/${namespace ?? ''}/${name}`)) return;
      const eventNamespace = namespace ?? CLUSTER_EVENTS_NAMESPACE;
      const time = new Date(options.now()).toISOString();
      const body = {
        apiVersion: 'v1', kind: 'Event',
        metadata: { generateName: `${name}.`, namespace: eventNamespace },
        involvedObject: { apiVersion: obj.apiVersion, kind: obj.kind, name, namespace, uid, resourceVersion },
        type: event.type, reason: event.reason, message: event.message.slice(0, MAX_MESSAGE),
        source: { component }, reportingComponent: component, reportingInstance: component,
        firstTimestamp: time, lastTimestamp: time, count: 1,
      };
      client.request({ method: 'POST', path: `/api/v1/namespaces/${eventNamespace}/events`, query: { fieldManager: options.fieldManager }, body })
        .catch((err: unknown) => logger.warn({ err, reason: event.reason, object: `${namespace ?? ''}/${name}` }, 'could not record event'));
    },
  };
}
