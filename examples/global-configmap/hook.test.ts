import { testHook } from 'kube-loom-sdk';
import { describe, expect, it } from 'vitest';
import { globalConfigMapHook } from './hook.ts';

const parent = { apiVersion: 'examples.loom.dev/v1', kind: 'GlobalConfigMap', metadata: { name: 'global' }, spec: { sourceName: 'settings', sourceNamespace: 'platform' } };
const source = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'platform' }, data: { region: 'eu' } };
const namespace = (name: string, status: Record<string, unknown> = { phase: 'Active' }, deletionTimestamp?: string) =>
  ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...(deletionTimestamp ? { deletionTimestamp } : {}) }, status });
const copy = (ns: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: ns }, data: { region: 'eu' } });

/** A sync request with the source (unless `withSource` is false) and the given namespaces, keyed as loom keys them. */
function request(namespaces: ReturnType<typeof namespace>[], options: { withSource?: boolean; children?: Record<string, unknown> } = {}) {
  return {
    parent,
    children: { 'ConfigMap.v1': options.children ?? {} },
    related: {
      'ConfigMap.v1': options.withSource === false ? {} : { 'platform/settings': source },
      'Namespace.v1': Object.fromEntries(namespaces.map((ns) => [ns.metadata.name, ns])),
    },
  };
}

describe('global-configmap hook', () => {
  const hook = testHook(globalConfigMapHook({ logger: false }));

  it('asks for the source ConfigMap and every namespace', async () => {
    const { statusCode, body } = await hook.customize({ parent });
    expect(statusCode).toBe(200);
    expect(body).toEqual({
      relatedResources: [
        { apiVersion: 'v1', resource: 'configmaps', namespace: 'platform', names: ['settings'] },
        { apiVersion: 'v1', resource: 'namespaces', labelSelector: {} },
      ],
    });
  });

  it("copies the source into every namespace but its own, in namespace order", async () => {
    const { statusCode, body } = await hook.sync(request([namespace('zeta'), namespace('platform'), namespace('alpha')]));
    expect(statusCode).toBe(200);
    expect(body).toEqual({ status: { expected_copies: 2, actual_copies: 0 }, children: [copy('alpha'), copy('zeta')] });
  });

  it.each([
    ['phase Terminating', namespace('leaving', { phase: 'Terminating' })],
    ['a deletionTimestamp', namespace('leaving', {}, '2026-01-01T00:00:00Z')],
  ])('skips a namespace being deleted (%s)', async (_, leaving) => {
    const { body } = await hook.sync(request([namespace('alpha'), leaving], { children: { 'leaving/settings': copy('leaving') } }));
    expect(body).toEqual({ status: { expected_copies: 1, actual_copies: 0 }, children: [copy('alpha')] });
  });

  it('counts the copies observed in target namespaces', async () => {
    const children = { 'alpha/settings': copy('alpha'), 'gone/settings': copy('gone') };
    const { body } = await hook.sync(request([namespace('alpha'), namespace('beta')], { children }));
    expect(body.status).toEqual({ expected_copies: 2, actual_copies: 1 });
  });

  it('asks for no copies (so they are deleted) while the source is missing', async () => {
    const { body } = await hook.sync(request([namespace('alpha')], { withSource: false, children: { 'alpha/settings': copy('alpha') } }));
    expect(body).toEqual({ status: { expected_copies: 1, actual_copies: 1 }, children: [] });
  });
});
