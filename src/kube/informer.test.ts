/**
 * The informer's recovery paths, which a healthy API server rarely shows on demand: `410 Gone` leads to a
 * relist that emits the difference; other failures retry the watch from where it was, after a backoff.
 * (Normal list/watch is tested against the real API server in test/kube-informer.test.ts.)
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/object.ts';
import { createInformer, ShortWatchError } from './informer.ts';
import { KubeApiError } from './kube-api-error.ts';
import type { Query, RestClient, RestRequest, WatchEvent } from './rest-client.ts';

const type = { apiVersion: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, subresources: [] };
const cm = (name: string, rv: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: rv } });

interface Script {
  lists: { items: KubeObject[]; resourceVersion: string }[];
  /**
   * One entry per watch call: events to yield, then an error to throw, or the end of the stream
   * (`end`), or else wait for the abort. `lasts` moves the clock that many ms before it ends.
   */
  watches: { events: WatchEvent[]; fail?: Error; end?: boolean; lasts?: number }[];
}

/** A clock whose time moves only when told, and whose sleeps return at once (recorded in `slept`). */
function steppedClock() {
  const slept: number[] = [];
  const clock = { time: 0, now: () => clock.time, sleep: (ms: number) => (slept.push(ms), Promise.resolve()) };
  return { clock, slept };
}

function scriptedClient(script: Script, calls: string[], queries: Query[] = [], clock?: { time: number }): RestClient {
  return {
    server: 'https://fake',
    request<T>(req: RestRequest): Promise<T> {
      calls.push(`list ${req.path}`);
      const list = script.lists.shift()!;
      return Promise.resolve({ metadata: { resourceVersion: list.resourceVersion }, items: list.items } as T);
    },
    async *watch(path: string, query: Query, signal: AbortSignal) {
      calls.push(`watch ${path} from ${String(query.resourceVersion)}`);
      queries.push(query);
      // Out of script: a watch that stays open until the informer stops.
      const next = script.watches.shift() ?? { events: [] };
      for (const event of next.events) yield event;
      if (clock) clock.time += next.lasts ?? 0;
      if (next.fail) throw next.fail;
      if (next.end) return;
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
    },
  };
}

function record() {
  const seen: string[] = [];
  const handler = {
    onAdd: (o: KubeObject) => seen.push(`add ${o.metadata.name}`),
    onUpdate: (_p: KubeObject, o: KubeObject) => seen.push(`update ${o.metadata.name}`),
    onDelete: (o: KubeObject) => seen.push(`delete ${o.metadata.name}`),
  };
  return { seen, handler };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

describe('informer recovery', () => {
  it('relists after 410 Gone and emits only the difference', async () => {
    const calls: string[] = [];
    const client = scriptedClient({
      lists: [
        { items: [cm('a', '1'), cm('b', '1')], resourceVersion: '10' },
        { items: [cm('a', '2'), cm('c', '11')], resourceVersion: '20' },
      ],
      watches: [{ events: [{ type: 'ADDED', object: cm('c', '11') }], fail: new KubeApiError('too old', { status: 410, reason: 'Gone' }) }],
    }, calls);
    const informer = createInformer({ client, type, clock: steppedClock().clock, logger: pino({ level: 'silent' }) });
    const { seen, handler } = record();
    informer.subscribe(handler);
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    await until(() => calls.length === 4);
    stop.abort();
    await running;

    expect(calls).toEqual(['list /api/v1/configmaps', 'watch /api/v1/configmaps from 10', 'list /api/v1/configmaps', 'watch /api/v1/configmaps from 20']);
    expect(seen).toEqual(['add a', 'add b', 'add c', 'update a', 'delete b']);
    expect(informer.hasSynced()).toBe(true);
    expect(informer.store.list().map((o) => o.metadata.name).sort()).toEqual(['a', 'c']);
  });

  it('resumes the watch from the last resourceVersion after a backoff on other errors', async () => {
    const calls: string[] = [];
    const slept: number[] = [];
    const client = scriptedClient({
      lists: [{ items: [], resourceVersion: '5' }],
      watches: [
        { events: [{ type: 'ADDED', object: cm('x', '6') }], fail: new Error('connection reset') },
        { events: [], fail: new Error('connection refused') },
      ],
    }, calls);
    const clock = { now: () => 0, sleep: (ms: number) => (slept.push(ms), Promise.resolve()) };
    const informer = createInformer({ client, type, clock, random: () => 0, logger: pino({ level: 'silent' }) });
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    await until(() => calls.length === 4);
    stop.abort();
    await running;

    expect(calls).toEqual(['list /api/v1/configmaps', 'watch /api/v1/configmaps from 5', 'watch /api/v1/configmaps from 6', 'watch /api/v1/configmaps from 6']);
    expect(slept).toEqual([500, 1000]);
  });

  it('replays cached objects to a late subscriber', async () => {
    const client = scriptedClient({ lists: [{ items: [cm('a', '1')], resourceVersion: '3' }], watches: [] }, []);
    const informer = createInformer({ client, type, clock: steppedClock().clock, logger: pino({ level: 'silent' }) });
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    await informer.whenSynced();
    const { seen, handler } = record();
    informer.subscribe(handler);
    stop.abort();
    await running;
    expect(seen).toEqual(['add a']);
  });
});

describe('informer watch pacing (as client-go\'s reflector)', () => {
  const quiet = pino({ level: 'silent' });

  it('asks the server to end each watch after a random 5 to 10 minutes', async () => {
    const calls: string[] = [];
    const queries: Query[] = [];
    const randoms = [0, 0.999];
    const client = scriptedClient({ lists: [{ items: [], resourceVersion: '1' }], watches: [{ events: [{ type: 'BOOKMARK', object: { metadata: { resourceVersion: '2' } } }], end: true }] }, calls, queries);
    const informer = createInformer({ client, type, clock: steppedClock().clock, random: () => randoms.shift() ?? 0.5, logger: quiet });
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    await until(() => queries.length === 2);
    stop.abort();
    await running;
    expect(queries.map((q) => q.timeoutSeconds)).toEqual([300, 599]);
  });

  it('waits with backoff after a watch that ends at once with nothing, as after a failure', async () => {
    const calls: string[] = [];
    const { clock, slept } = steppedClock();
    const client = scriptedClient({ lists: [{ items: [], resourceVersion: '1' }], watches: [{ events: [], end: true }, { events: [], end: true }] }, calls);
    const informer = createInformer({ client, type, clock, random: () => 0, logger: quiet });
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    await until(() => calls.length === 4);
    stop.abort();
    await running;
    expect(slept).toEqual([500, 1000]);
    expect(informer.lastError()).toBeInstanceOf(ShortWatchError);
  });

  it('resumes at once after a watch that lasted, even with no event', async () => {
    const calls: string[] = [];
    const { clock, slept } = steppedClock();
    const client = scriptedClient({ lists: [{ items: [], resourceVersion: '1' }], watches: [{ events: [], end: true, lasts: 1_000 }] }, calls, [], clock);
    const informer = createInformer({ client, type, clock, random: () => 0, logger: quiet });
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    await until(() => calls.length === 3);
    stop.abort();
    await running;
    expect(slept).toEqual([]);
  });

  it('stretches each wait at random, and starts from the minimum again only after two minutes without a failure', async () => {
    const calls: string[] = [];
    const { clock, slept } = steppedClock();
    const fail = (lasts: number) => ({ events: [], fail: new Error('connection reset'), lasts });
    // Failures 1 s apart grow the backoff; a failure 120 s after the previous one starts it again.
    const client = scriptedClient({ lists: [{ items: [], resourceVersion: '1' }], watches: [fail(0), fail(1_000), fail(1_000), fail(120_000)] }, calls, [], clock);
    const informer = createInformer({ client, type, clock, random: () => 0.5, logger: quiet });
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    await until(() => calls.length === 6);
    stop.abort();
    await running;
    expect(slept).toEqual([750, 1500, 3000, 750]);
  });
});

describe('informer transform', () => {
  it('caches listed and watched objects as the transform leaves them, and hands handlers the same', async () => {
    const calls: string[] = [];
    const client = scriptedClient({
      lists: [{ items: [cm('a', '1')], resourceVersion: '1' }],
      watches: [{ events: [{ type: 'ADDED', object: cm('b', '2') }, { type: 'MODIFIED', object: cm('a', '3') }] }],
    }, calls);
    const transform = (obj: KubeObject): KubeObject => ({ ...obj, metadata: { ...obj.metadata, labels: { trimmed: 'yes' } } });
    const informer = createInformer({ client, type, clock: steppedClock().clock, transform, logger: pino({ level: 'silent' }) });
    const handled: KubeObject[] = [];
    informer.subscribe({ onAdd: (o) => handled.push(o), onUpdate: (_p, o) => handled.push(o) });
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    await until(() => handled.length === 3);
    stop.abort();
    await running;
    expect(handled.map((o) => o.metadata.labels)).toEqual([{ trimmed: 'yes' }, { trimmed: 'yes' }, { trimmed: 'yes' }]);
    expect(informer.store.list().every((o) => o.metadata.labels?.trimmed === 'yes')).toBe(true);
  });
});
