import { describe, expect, it } from 'vitest';
import { manualClock } from '../engine/manual-clock.test-support.ts';
import { COMBINED_PREFIX, createEventCorrelator, type CorrelatorOptions, type EventOccurrence, type EventWrite, type InvolvedObject } from './event-correlator.ts';

const parent = { apiVersion: 'test.loom.dev/v1', kind: 'Paint', namespace: 'ns', name: 'p', uid: 'uid-1', resourceVersion: '7' };
type Happening = Omit<EventOccurrence, 'at'>;
const failure = (message = 'Sync error: boom', involvedObject: InvolvedObject = parent): Happening =>
  ({ involvedObject, type: 'Warning', reason: 'SyncError', message });

function setup(options: Partial<CorrelatorOptions> = {}) {
  const clock = manualClock(Date.parse('2026-01-01T00:00:00Z'));
  const correlator = createEventCorrelator({ component: 'loom', ...options });
  let names = 0;
  /** Correlates and, for a create, answers as the API server would with a new name. */
  const record = (occurrence: Happening): EventWrite => {
    const write = correlator.correlate({ ...occurrence, at: clock.now() });
    if (write.action === 'create') correlator.created(write.key, `p.${++names}`);
    return write;
  };
  return { clock, correlator, record };
}

describe('createEventCorrelator', () => {
  it('creates an event seen for the first time with count 1', () => {
    const { record } = setup();
    const write = record(failure());
    expect(write).toEqual({
      action: 'create', key: expect.any(String) as string,
      event: {
        apiVersion: 'v1', kind: 'Event', metadata: { generateName: 'p.', namespace: 'ns' },
        involvedObject: parent, type: 'Warning', reason: 'SyncError', message: 'Sync error: boom',
        source: { component: 'loom' }, reportingComponent: 'loom', reportingInstance: 'loom',
        firstTimestamp: '2026-01-01T00:00:00.000Z', lastTimestamp: '2026-01-01T00:00:00.000Z', count: 1,
      },
    });
  });

  it('patches the Event already written for an identical event, with count n and a new lastTimestamp', async () => {
    const { clock, record } = setup();
    record(failure());
    await clock.advance(5_000);
    record(failure());
    await clock.advance(5_000);
    // A new resourceVersion of the object does not make the event a different one.
    const third = record(failure('Sync error: boom', { ...parent, resourceVersion: '9' }));
    expect(third).toMatchObject({
      action: 'patch', namespace: 'ns', name: 'p.1',
      patch: { count: 3, lastTimestamp: '2026-01-01T00:00:10.000Z', message: 'Sync error: boom' },
      event: { count: 3, firstTimestamp: '2026-01-01T00:00:00.000Z', lastTimestamp: '2026-01-01T00:00:10.000Z' },
    });
  });

  it('keeps events of another object, uid, type or reason apart', () => {
    const { record } = setup();
    record(failure());
    const others: Happening[] = [
      failure('Sync error: boom', { ...parent, name: 'q' }),
      failure('Sync error: boom', { ...parent, uid: 'uid-2' }),
      { ...failure(), type: 'Normal' },
      { ...failure(), reason: 'Other' },
    ];
    expect(others.map((o) => record(o).action)).toEqual(['create', 'create', 'create', 'create']);
  });

  it('creates a repeat with the count so far while the Event of its first occurrence was never created', () => {
    const { clock, correlator } = setup();
    correlator.correlate({ ...failure(), at: clock.now() });
    expect(correlator.correlate({ ...failure(), at: clock.now() })).toMatchObject({ action: 'create', event: { count: 2 } });
  });

  it('combines the tenth different message of one group within the window, and counts the combined Event', async () => {
    const { clock, record } = setup();
    const writes: EventWrite[] = [];
    for (let i = 1; i <= 12; i++) {
      writes.push(record(failure(`attempt ${i}`)));
      await clock.advance(1_000);
    }
    expect(writes.slice(0, 9).map((w) => [w.action, w.event.message])).toEqual(Array.from({ length: 9 }, (_, i) => ['create', `attempt ${i + 1}`]));
    expect(writes[9]).toMatchObject({ action: 'create', event: { message: `${COMBINED_PREFIX}attempt 10`, count: 1 } });
    expect(writes[11]).toMatchObject({
      action: 'patch', name: 'p.10', patch: { count: 3, message: `${COMBINED_PREFIX}attempt 12` },
    });
  });

  it('starts a group afresh after the window', async () => {
    const { clock, record } = setup({ maxSimilar: 3, windowMs: 60_000 });
    record(failure('a'));
    record(failure('b'));
    await clock.advance(60_001);
    // Without the window, `c` would be the third different message and combined.
    expect(record(failure('c'))).toMatchObject({ action: 'create', event: { message: 'c' } });
    expect(record(failure('d'))).toMatchObject({ action: 'create', event: { message: 'd' } });
    expect(record(failure('e'))).toMatchObject({ action: 'create', event: { message: `${COMBINED_PREFIX}e` } });
  });

  it('keeps combining within the window as long as events keep coming', async () => {
    const { clock, record } = setup({ maxSimilar: 3, windowMs: 60_000 });
    record(failure('a'));
    await clock.advance(50_000);
    record(failure('b'));
    await clock.advance(50_000);
    expect(record(failure('c'))).toMatchObject({ event: { message: `${COMBINED_PREFIX}c` } });
  });

  it('forgets the least recently used events beyond its cache size', () => {
    const { record } = setup({ cacheSize: 2 });
    record(failure('a'));
    record(failure('b'));
    // Using `a` again makes `b` the least recently used, which `c` then pushes out.
    expect(record(failure('a')).action).toBe('patch');
    record(failure('c'));
    expect(record(failure('a')).action).toBe('patch');
    expect(record(failure('b'))).toMatchObject({ action: 'create', event: { count: 1 } });
  });

  it('sends events of cluster-scoped objects to default, and cuts long messages to 1024 characters', () => {
    const { record } = setup();
    const { namespace: _, ...clusterScoped } = parent;
    const write = record(failure('x'.repeat(2000), clusterScoped));
    expect(write.event.metadata.namespace).toBe('default');
    expect(write.event.message).toHaveLength(1024);
  });

  it('tells messages apart only by what an Event can hold (1,024 characters), and keeps no more', () => {
    const { record } = setup();
    const long = 'x'.repeat(1_024);
    record(failure(`${long} first tail`));
    const second = record(failure(`${long} second tail`));
    expect(second).toMatchObject({ action: 'patch', patch: { count: 2, message: long } });
  });
});
