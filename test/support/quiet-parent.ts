/**
 * Whether loom leaves a converged parent alone: the writes of the parent over syncs the test brings
 * about, other than the test's own. Bounded by state, not time: each sync is seen in a child it
 * updates (the hook copies the parent's `poke` annotation into it), and syncs of one parent never
 * overlap, so once the third is seen the first two have finished, status write and all.
 */
import type { KubeObject } from '../../src/api/index.ts';
import { eventually } from './cluster.ts';
import { inRevisionOrder, type RecordedEvent } from './watch-record.ts';

/** What {@link parentWritesOverSyncs} works with. */
export interface QuietWindow {
  /** Events of the parent's collection, recording since before `since`. */
  seen: readonly RecordedEvent[];
  /** The parent's name. */
  name: string;
  /** The parent's resourceVersion once it converged: the window starts after it. */
  since: string | undefined;
  /** The test's own write of the parent with annotation `poke: <value>`, answered with the parent. */
  poke(value: string): Promise<KubeObject>;
  /** The value of `poke` the child that the hook copies it into carries now. */
  pokeSeen(): Promise<string | undefined>;
}

/** The parent's events in the window that the test did not write: loom's writes. */
export async function parentWritesOverSyncs(window: QuietWindow): Promise<RecordedEvent[]> {
  const since = Number(window.since);
  const ours = new Set<number>();
  let last = since;
  for (const value of ['1', '2', '3']) {
    last = Number((await window.poke(value)).metadata.resourceVersion);
    ours.add(last);
    await eventually(async () => ((await window.pokeSeen()) === value ? true : undefined), `a sync that read poke=${value}`);
  }
  return inRevisionOrder(window.seen).filter((e) => e.object.metadata.name === window.name && e.revision > since && e.revision <= last && !ours.has(e.revision));
}
