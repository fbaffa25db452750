/**
 * Watch events recorded while a test runs, so it can prove from the API server's own history in which
 * order objects appeared, changed and went (one etcd: resourceVersions are its revisions, so sorting
 * by them puts events of different types in the order they happened).
 */
import type { KubeObject } from '../../src/api/index.ts';
import type { RestClient } from '../../src/kube/index.ts';

/** One watch event. */
export interface RecordedEvent {
  type: string;
  object: KubeObject;
  /** The object's resourceVersion, as a number. */
  revision: number;
}

/** What {@link recordWatches} hands back. */
export interface Recording {
  /** The events so far, in arrival order (per path); sort by `revision` to compare paths. */
  seen: RecordedEvent[];
  /** Settles once every watch is established, so nothing the test does afterwards is missed. */
  established: Promise<void>;
}

/** Watches every collection path until `stop` aborts, recording each event. */
export function recordWatches(client: RestClient, paths: readonly string[], stop: AbortSignal): Recording {
  const seen: RecordedEvent[] = [];
  const established = paths.map(async (path) => {
    let started: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (started = resolve));
    void (async () => {
      try {
        for await (const event of client.watch(path, {}, stop, started)) {
          if (event.type === 'BOOKMARK') continue;
          const object = event.object as unknown as KubeObject;
          seen.push({ type: event.type, object, revision: Number(object.metadata.resourceVersion) });
        }
      } catch {
        // The watch ends when the test aborts it.
      }
    })();
    await ready;
  });
  return { seen, established: Promise.all(established).then(() => undefined) };
}

/** The recorded events in the order etcd made them. */
export function inRevisionOrder(seen: readonly RecordedEvent[]): RecordedEvent[] {
  return [...seen].sort((a, b) => a.revision - b.revision);
}
