import { testHook } from 'kube-loom-sdk';
import { describe, expect, it } from 'vitest';
import { secretPropagationHook } from './hook.ts';

const selector = { matchLabels: { 'registry-access': 'true' } };
const parent = {
  apiVersion: 'examples.loom.dev/v1', kind: 'SecretPropagation', metadata: { name: 'creds' },
  spec: { sourceName: 'creds', sourceNamespace: 'platform', targetNamespaceLabelSelector: selector },
};
const source = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds', namespace: 'platform', uid: 'u1' }, type: 'kubernetes.io/basic-auth', data: { username: 'cm9ib3Q=' } };
const namespace = (name: string, status: Record<string, unknown> = { phase: 'Active' }) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name }, status });
const copy = (ns: string, type = 'kubernetes.io/basic-auth') => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds', namespace: ns }, type, data: { username: 'cm9ib3Q=' } });

/** A sync request with `secret` as the source (none when null) and the given selected namespaces. */
function request(namespaces: ReturnType<typeof namespace>[], children: Record<string, unknown> = {}, secret: object | null = source) {
  return {
    parent,
    children: { 'Secret.v1': children },
    related: {
      'Secret.v1': secret ? { 'platform/creds': secret } : {},
      'Namespace.v1': Object.fromEntries(namespaces.map((ns) => [ns.metadata.name, ns])),
    },
  };
}

describe('secret-propagation hook', () => {
  const hook = testHook(secretPropagationHook({ logger: false }));

  it("asks for the source Secret and the namespaces the parent's selector matches", async () => {
    const { statusCode, body } = await hook.customize({ parent });
    expect(statusCode).toBe(200);
    expect(body).toEqual({
      relatedResources: [
        { apiVersion: 'v1', resource: 'secrets', namespace: 'platform', names: ['creds'] },
        { apiVersion: 'v1', resource: 'namespaces', labelSelector: selector },
      ],
    });
  });

  it("copies the source's type and data into each selected namespace but its own and those being deleted", async () => {
    const selected = [namespace('beta'), namespace('platform'), namespace('alpha'), namespace('leaving', { phase: 'Terminating' })];
    const { statusCode, body } = await hook.sync(request(selected));
    expect(statusCode).toBe(200);
    expect(body).toEqual({ status: { expected_copies: 2, actual_copies: 0 }, children: [copy('alpha'), copy('beta')] });
  });

  it('drops the copy of a namespace no longer selected, and counts the copies of those that are', async () => {
    const { body } = await hook.sync(request([namespace('alpha')], { 'alpha/creds': copy('alpha'), 'beta/creds': copy('beta') }));
    expect(body).toEqual({ status: { expected_copies: 1, actual_copies: 1 }, children: [copy('alpha')] });
  });

  it('leaves out once a copy of another type than the source, so it is deleted and made again', async () => {
    const { body } = await hook.sync(request([namespace('alpha'), namespace('beta')], { 'alpha/creds': copy('alpha', 'Opaque'), 'beta/creds': copy('beta') }));
    expect(body).toEqual({ status: { expected_copies: 2, actual_copies: 2 }, children: [copy('beta')] });
  });

  it('asks for no copies (so they are deleted) while the source is missing', async () => {
    const { body } = await hook.sync(request([namespace('alpha')], { 'alpha/creds': copy('alpha') }, null));
    expect(body).toEqual({ status: { expected_copies: 1, actual_copies: 1 }, children: [] });
  });

  it('copies a source without data as an empty Secret of its type', async () => {
    const { body } = await hook.sync(request([namespace('alpha')], {}, { ...source, data: undefined }));
    expect(body.children).toEqual([{ ...copy('alpha'), data: {} }]);
  });
});
