import { testHook } from 'kube-loom-sdk';
import { describe, expect, it } from 'vitest';
import { namespaceInventoryHook } from './hook.ts';

const selector = { matchLabels: { team: 'payments' } };
const parent = { apiVersion: 'examples.loom.dev/v1', kind: 'NamespaceInventory', metadata: { name: 'payments', namespace: 'default' }, spec: { labelSelector: selector } };
const namespace = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
/** Related Namespaces keyed as v2 keys cluster-scoped objects: by name. */
const related = (...names: string[]) => ({ 'Namespace.v1': Object.fromEntries(names.map((name) => [name, namespace(name)])) });

describe('namespace-list-v2 hook', () => {
  const hook = testHook(namespaceInventoryHook({ logger: false }));

  it("asks for the namespaces the parent's label selector matches", async () => {
    const { statusCode, body } = await hook.customize({ parent });
    expect(statusCode).toBe(200);
    expect(body).toEqual({ relatedResources: [{ apiVersion: 'v1', resource: 'namespaces', labelSelector: selector }] });
  });

  it.each([
    ['without a spec', { ...parent, spec: undefined }],
    ['without a selector', { ...parent, spec: {} }],
  ])('asks for every namespace %s', async (_, other) => {
    const { body } = await hook.customize({ parent: other });
    expect(body.relatedResources).toEqual([{ apiVersion: 'v1', resource: 'namespaces', labelSelector: {} }]);
  });

  it('reports the related namespaces sorted by name, and asks for no children', async () => {
    const { statusCode, body } = await hook.sync({ parent, children: { 'ConfigMap.v1': {} }, related: related('payments-batch', 'b', 'payments-api') });
    expect(statusCode).toBe(200);
    expect(body).toEqual({ status: { namespaces: ['b', 'payments-api', 'payments-batch'], count: 3 }, children: [] });
  });

  it('reports an empty list when no namespace is related (what a v1 hook would be given)', async () => {
    const { body } = await hook.sync({ parent, children: { 'ConfigMap.v1': {} }, related: { 'Namespace.v1': {} } });
    expect(body.status).toEqual({ namespaces: [], count: 0 });
  });
});
