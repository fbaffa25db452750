import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../api/index.ts';
import { createObjectStore } from '../../kube/index.ts';
import { childHandler, parentHandler, type RoutingContext } from './route-events.ts';

const parentType = { apiVersion: 'example.com/v1', resource: 'webs', kind: 'Web', namespaced: true, subresources: ['status'] };

function web(name: string, extra: Partial<KubeObject['metadata']> = {}, selector: Record<string, string> = { app: name }): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Web', metadata: { name, namespace: 'ns', uid: `uid-${name}`, generation: 1, ...extra }, spec: { selector: { matchLabels: selector } } };
}

function child(name: string, labels: Record<string, string>, owner?: string): KubeObject {
  const ownerReferences = owner ? [{ apiVersion: 'example.com/v1', kind: 'Web', name: owner, uid: `uid-${owner}`, controller: true }] : undefined;
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', labels, ...(ownerReferences ? { ownerReferences } : {}) } };
}

function routing(overrides: Partial<RoutingContext> = {}) {
  const parents = createObjectStore();
  const queued: string[] = [];
  const ctx: RoutingContext = {
    parentType, parents, parentLabelSelector: undefined, finalizer: 'metacontroller.io/compositecontroller-web',
    generateSelector: false, ignoreStatusChanges: false, enqueue: (key) => queued.push(key), ...overrides,
  };
  return { ctx, parents, queued };
}

describe('parent events', () => {
  it('enqueue parents that match the parent selector or carry the finalizer', () => {
    const { ctx, queued } = routing({ parentLabelSelector: { matchLabels: { managed: 'yes' } } });
    const handler = parentHandler(ctx);
    handler.onAdd?.(web('a', { labels: { managed: 'yes' } }));
    handler.onAdd?.(web('b'));
    handler.onAdd?.(web('c', { finalizers: ['metacontroller.io/compositecontroller-web'] }));
    expect(queued).toEqual(['ns/a', 'ns/c']);
  });

  it('drop status-only updates with ignoreStatusChanges', () => {
    const { ctx, queued } = routing({ ignoreStatusChanges: true });
    const handler = parentHandler(ctx);
    const before = web('a');
    handler.onUpdate?.(before, { ...before, status: { ready: true } });
    handler.onUpdate?.(before, web('a', { generation: 2 }));
    handler.onUpdate?.(before, web('a', { labels: { x: 'y' } }));
    expect(queued).toEqual(['ns/a', 'ns/a']);
  });
});

describe('child events', () => {
  it('go to the owning parent only when its UID matches', () => {
    const { ctx, parents, queued } = routing();
    parents.upsert(web('a'));
    const handler = childHandler(ctx);
    handler.onAdd?.(child('a-1', {}, 'a'));
    handler.onDelete?.(child('a-1', {}, 'a'));
    handler.onAdd?.(child('x-1', {}, 'x'));
    expect(queued).toEqual(['ns/a', 'ns/a']);
  });

  it('wake the parents whose selector matches an orphan', () => {
    const { ctx, parents, queued } = routing();
    parents.upsert(web('a'));
    parents.upsert(web('b'));
    parents.upsert(web('wide', {}, {}));
    childHandler(ctx).onAdd?.(child('stray', { app: 'b' }));
    expect(queued).toEqual(['ns/b']);
  });

  it('wake both the former and the new parent on an update that moves a child', () => {
    const { ctx, parents, queued } = routing();
    parents.upsert(web('a'));
    parents.upsert(web('b'));
    childHandler(ctx).onUpdate?.(child('moved', { app: 'b' }, 'a'), child('moved', { app: 'b' }));
    expect(queued.sort()).toEqual(['ns/a', 'ns/b']);
  });
});
