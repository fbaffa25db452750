import { testHook } from 'kube-loom-sdk';
import { describe, expect, it } from 'vitest';
import { configMapPropagationHook } from './hook.ts';

const parent = {
  apiVersion: 'examples.loom.dev/v1', kind: 'ConfigMapPropagation', metadata: { name: 'settings' },
  spec: { sourceName: 'settings', sourceNamespace: 'platform', targetNamespaces: ['one', 'two', 'platform', 'one'] },
};
const source = {
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'platform', uid: 'u1', labels: { team: 'platform' } },
  data: { region: 'eu' }, binaryData: { logo: 'AAEC' },
};
const copy = (namespace: string, data: Record<string, string> = { region: 'eu' }) => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace }, data,
});
const related = { 'ConfigMap.v1': { 'platform/settings': source } };

describe('configmap-propagation hook', () => {
  const hook = testHook(configMapPropagationHook({ logger: false }));

  it('asks for the source ConfigMap by namespace and name', async () => {
    const { statusCode, body } = await hook.customize({ parent });
    expect(statusCode).toBe(200);
    expect(body).toEqual({ relatedResources: [{ apiVersion: 'v1', resource: 'configmaps', namespace: 'platform', names: ['settings'] }] });
  });

  it("copies the source's data and binaryData into each target namespace once, never into its own", async () => {
    const { statusCode, body } = await hook.sync({ parent, children: { 'ConfigMap.v1': {} }, related });
    expect(statusCode).toBe(200);
    const expected = (namespace: string) => ({ ...copy(namespace), binaryData: { logo: 'AAEC' } });
    expect(body).toEqual({ status: { expected_copies: 2, actual_copies: 0 }, children: [expected('one'), expected('two')] });
  });

  it('counts the copies observed in target namespaces only', async () => {
    const children = { 'ConfigMap.v1': { 'one/settings': copy('one'), 'two/settings': copy('two', { region: 'old' }), 'gone/settings': copy('gone') } };
    const { body } = await hook.sync({ parent, children, related });
    expect(body.status).toEqual({ expected_copies: 2, actual_copies: 2 });
    expect(body.children?.map((c) => c.metadata.namespace)).toEqual(['one', 'two']);
  });

  it('leaves binaryData out of the copies when the source has none', async () => {
    const plain = { ...source, binaryData: undefined };
    const { body } = await hook.sync({ parent, children: { 'ConfigMap.v1': {} }, related: { 'ConfigMap.v1': { 'platform/settings': plain } } });
    expect(body.children?.[0]).toEqual(copy('one'));
    expect(body.children?.[0]).not.toHaveProperty('binaryData');
  });

  it('asks for no copies (so they are deleted) while the source is missing', async () => {
    const children = { 'ConfigMap.v1': { 'one/settings': copy('one') } };
    const { body } = await hook.sync({ parent, children, related: { 'ConfigMap.v1': {} } });
    expect(body).toEqual({ status: { expected_copies: 2, actual_copies: 1 }, children: [] });
  });

  it('expects nothing of a propagation without targets', async () => {
    const { body } = await hook.sync({ parent: { ...parent, spec: { sourceName: 'settings', sourceNamespace: 'platform' } }, related });
    expect(body).toEqual({ status: { expected_copies: 0, actual_copies: 0 }, children: [] });
  });
});
