import { describe, expect, it } from 'vitest';
import type { CompositeControllerSpec, EndpointConfig, Hook, KubeObject } from '../api/index.ts';
import type { Informer, InformerScope, ResourceType } from '../kube/index.ts';
import type { ExpressionSources } from './expression-sources.ts';
import { runnerFor } from './hook-runners.ts';
import type { Host } from './host.ts';
import { createWebhookCredentialSource } from './webhook-secrets.ts';
import { NO_TRACING } from '../engine/index.ts';

const TYPES: Record<string, ResourceType> = {
  secrets: { apiVersion: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true } as ResourceType,
  configmaps: { apiVersion: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true } as ResourceType,
};

/** A host whose informers serve `objects` (by resource, then `namespace/name`) and count their leases by `resource/namespace/name`. */
function fakeHost(objects: Record<string, Record<string, KubeObject>>, options: { synced?: Promise<void>; referenceNamespaces?: string[] } = {}) {
  const leases = new Map<string, number>();
  let synced = options.synced === undefined;
  void options.synced?.then(() => (synced = true));
  const informer = (type: ResourceType): Informer => ({
    type,
    store: { get: (key: string) => objects[type.resource]?.[key] } as Informer['store'],
    hasSynced: () => synced,
    whenSynced: () => options.synced ?? Promise.resolve(),
    lastError: () => undefined,
    onError: () => () => false,
    subscribe: () => () => undefined,
    run: () => Promise.resolve(),
  });
  const host = {
    discovery: () => ({ byResource: (_apiVersion: string, resource: string) => TYPES[resource], byKind: () => undefined, size: 2 }),
    settings: { referenceNamespaces: options.referenceNamespaces },
    informers: {
      acquire(type: ResourceType, scope?: InformerScope) {
        const key = scope ? `${type.resource}/${scope.namespace}/${scope.name}` : type.resource;
        leases.set(key, (leases.get(key) ?? 0) + 1);
        let released = false;
        return {
          informer: informer(type),
          release: () => {
            if (!released) leases.set(key, leases.get(key)! - 1);
            released = true;
          },
        };
      },
    },
    metrics: { hookObserver: () => ({ requestStarted: () => undefined, requestFinished: () => undefined }) },
    clock: { now: () => 0, sleep: () => Promise.resolve() },
    tracing: NO_TRACING,
  } as unknown as Host;
  return { host, leases };
}

const b64 = (text: string) => Buffer.from(text).toString('base64');
const secret = (name: string, data: Record<string, string>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'hooks' }, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) });
const signal = new AbortController().signal;
const ref = (kind: 'Secret' | 'ConfigMap', name: string) => ({ kind, namespace: 'hooks', name, setting: 'spec.hooks.sync.webhook.authorization.secretRef' });
const text = (data: ReadonlyMap<string, Buffer> | undefined) => data && Object.fromEntries([...data].map(([k, v]) => [k, v.toString()]));

describe('createWebhookCredentialSource', () => {
  it('decodes Secret data and ConfigMap data and binaryData; a missing object is undefined', async () => {
    const { host } = fakeHost({
      secrets: { 'hooks/token': secret('token', { token: 'abc' }) },
      configmaps: { 'hooks/ca': { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ca', namespace: 'hooks' }, data: { 'ca.crt': 'PEM' }, binaryData: { 'ca.der': b64('DER') } } },
    });
    const source = createWebhookCredentialSource(host, [ref('Secret', 'token'), ref('ConfigMap', 'ca'), ref('Secret', 'gone')]);
    expect(text(await source.read('Secret', { namespace: 'hooks', name: 'token' }, signal))).toEqual({ token: 'abc' });
    expect(text(await source.read('ConfigMap', { namespace: 'hooks', name: 'ca' }, signal))).toEqual({ 'ca.crt': 'PEM', 'ca.der': 'DER' });
    expect(await source.read('Secret', { namespace: 'hooks', name: 'gone' }, signal)).toBeUndefined();
  });

  it('acquires one cache narrowed to each object named, once, and releases them', async () => {
    const { host, leases } = fakeHost({});
    const source = createWebhookCredentialSource(host, [ref('Secret', 'token'), ref('Secret', 'token'), ref('Secret', 'tls')]);
    expect(Object.fromEntries(leases)).toEqual({ 'secrets/hooks/token': 1, 'secrets/hooks/tls': 1 });
    await expect(source.read('Secret', { namespace: 'hooks', name: 'other' }, signal)).rejects.toThrow('no cache was acquired for Secret hooks/other');
    source.release();
    source.release();
    expect(Object.fromEntries(leases)).toEqual({ 'secrets/hooks/token': 0, 'secrets/hooks/tls': 0 });
  });

  it('waits for the first list, and gives up when the signal aborts', async () => {
    const { host } = fakeHost({ secrets: { 'hooks/token': secret('token', { token: 'abc' }) } }, { synced: new Promise(() => undefined) });
    const source = createWebhookCredentialSource(host, [ref('Secret', 'token')]);
    const controller = new AbortController();
    const reason = new Error('timed out');
    const reading = source.read('Secret', { namespace: 'hooks', name: 'token' }, controller.signal);
    controller.abort(reason);
    await expect(reading).rejects.toBe(reason);
  });
});

describe('runnerFor: webhook credentials', () => {
  const sources = {} as ExpressionSources;
  const webhook = (url: string, own: Partial<NonNullable<Hook['webhook']>> = {}): Hook =>
    ({ version: 'v1', webhook: { url, timeoutMs: 1_000, etag: { enabled: false }, responseUnMarshallMode: 'loose', ...own } });
  const token = { type: 'Bearer', secretRef: { namespace: 'hooks', name: 'token', key: 'token' } };
  const endpointConfigs: CompositeControllerSpec['endpointConfigs'] = [{ host: 'hooks.example.com', authorization: token } satisfies EndpointConfig];
  const id = (configs?: readonly EndpointConfig[]) => ({ hook: 'sync' as const, controller: { controller: 'c', type: 'CompositeController' }, endpointConfigs: configs });

  it('holds a Secret cache for a matching endpointConfig until released', async () => {
    const { host, leases } = fakeHost({});
    const runner = await runnerFor(host, webhook('https://hooks.example.com/sync'), id(endpointConfigs), sources);
    expect(Object.fromEntries(leases)).toEqual({ 'secrets/hooks/token': 1 });
    runner.release();
    expect(Object.fromEntries(leases)).toEqual({ 'secrets/hooks/token': 0 });
  });

  it('refuses, holding nothing, a Secret outside --reference-namespaces', async () => {
    const { host, leases } = fakeHost({}, { referenceNamespaces: ['loom-system'] });
    await expect(runnerFor(host, webhook('https://hooks.example.com/sync'), id(endpointConfigs), sources)).rejects.toThrow(
      'spec.endpointConfigs[0].authorization.secretRef: Secret hooks/token is in namespace "hooks"; --reference-namespaces allows only "loom-system"',
    );
    expect(leases.size).toBe(0);
  });

  it('refuses a JSONata configMapRef outside --reference-namespaces before reading it', async () => {
    const { host } = fakeHost({}, { referenceNamespaces: ['loom-system'] });
    const read = (): Promise<string> => Promise.reject(new Error('read'));
    const hook: Hook = { version: 'v1', jsonata: { configMapRef: { namespace: 'team-a', name: 'exprs', key: 'sync' }, timeoutMs: 1_000 } };
    await expect(runnerFor(host, hook, id(), { read } as unknown as ExpressionSources)).rejects.toThrow(
      'spec.hooks.sync.jsonata.configMapRef: ConfigMap team-a/exprs is in namespace "team-a"',
    );
  });

  it('holds nothing when no settings apply', async () => {
    const { host, leases } = fakeHost({});
    await runnerFor(host, webhook('https://elsewhere.example.com/sync'), id(endpointConfigs), sources);
    await runnerFor(host, webhook('https://hooks.example.com/sync'), id(), sources);
    expect(leases.size).toBe(0);
  });

  it('names the endpointConfig in a missing-Secret error', async () => {
    const { host } = fakeHost({});
    const runner = await runnerFor(host, webhook('https://hooks.example.com/sync'), id(endpointConfigs), sources);
    await expect(runner.call({}, signal)).rejects.toThrow('Secret hooks/token (spec.endpointConfigs[0].authorization.secretRef) does not exist');
    runner.release();
  });

  it("names the webhook's own setting when it has one", async () => {
    const { host } = fakeHost({});
    const runner = await runnerFor(host, webhook('https://hooks.example.com/sync', { authorization: token }), id(endpointConfigs), sources);
    await expect(runner.call({}, signal)).rejects.toThrow('(spec.hooks.sync.webhook.authorization.secretRef) does not exist');
    runner.release();
  });

  it('releases the caches when the runner cannot be built', async () => {
    const { host, leases } = fakeHost({});
    const bad = webhook('https://hooks.example.com/sync', { authorization: token, caBundle: { inline: 'not pem' } });
    await expect(runnerFor(host, bad, id(), sources)).rejects.toThrow('holds no PEM certificate');
    expect(Object.fromEntries(leases)).toEqual({ 'secrets/hooks/token': 0 });
  });
});
