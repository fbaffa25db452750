import { describe, expect, it } from 'vitest';
import { manualClock } from '../engine/manual-clock.test-support.ts';
import { createObjectStore, type Informer, type InformerLease, type ResourceType } from '../kube/index.ts';
import type { Host } from './host.ts';
import { createRelatedWatches, RELATED_CACHE_TIMEOUT_MS } from './related-watches.ts';

const CONFIGMAPS: ResourceType = { apiVersion: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, subresources: [] };
const SECRETS: ResourceType = { apiVersion: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true, subresources: [] };

/** A host whose informers fill when the test says so, counting subscriptions and releases. */
function fakeHost() {
  const clock = manualClock();
  const synced = new Set<string>();
  const counts = { acquired: 0, released: 0, subscribed: 0, unsubscribed: 0 };
  const acquire = (type: ResourceType): InformerLease => {
    counts.acquired++;
    const informer = {
      type, store: createObjectStore(),
      hasSynced: () => synced.has(type.resource),
      subscribe: () => {
        counts.subscribed++;
        return () => counts.unsubscribed++;
      },
    } as unknown as Informer;
    return { informer, release: () => counts.released++ };
  };
  const host = { clock, informers: { acquire } } as unknown as Host;
  return { host, clock, synced, counts };
}

describe('related watches', () => {
  it('starts each watch once and reports only the named ones that are still listing', () => {
    const { host, synced, counts } = fakeHost();
    const watches = createRelatedWatches(host);
    watches.start('cm', CONFIGMAPS, {});
    watches.start('cm', CONFIGMAPS, {});
    watches.start('secrets', SECRETS, {});
    expect(counts).toMatchObject({ acquired: 2, subscribed: 2 });
    expect(watches.progress(['cm'])).toEqual({ filling: ['v1/configmaps'], stuck: [] });
    synced.add('configmaps');
    expect(watches.progress(['cm'])).toEqual({ filling: [], stuck: [] });
    expect(watches.store('cm')).toBeDefined();
    expect(watches.store('secrets')).toBeUndefined();
    expect(watches.progress(['cm', 'secrets', 'unknown'])).toEqual({ filling: ['v1/secrets'], stuck: [] });
  });

  it('calls a watch stuck once it has listed for longer than the timeout', async () => {
    const { host, clock } = fakeHost();
    const watches = createRelatedWatches(host);
    watches.start('secrets', SECRETS, {});
    await clock.advance(RELATED_CACHE_TIMEOUT_MS);
    expect(watches.progress(['secrets'])).toEqual({ filling: ['v1/secrets'], stuck: [] });
    await clock.advance(1);
    expect(watches.progress(['secrets'])).toEqual({ filling: [], stuck: ['v1/secrets'] });
  });

  it('unsubscribes and releases everything on stop', () => {
    const { host, counts } = fakeHost();
    const watches = createRelatedWatches(host);
    watches.start('cm', CONFIGMAPS, {});
    watches.start('secrets', SECRETS, {});
    watches.stop();
    expect(counts).toMatchObject({ released: 2, unsubscribed: 2 });
    expect(watches.store('cm')).toBeUndefined();
  });
});
