import { testHook, type KubeObject } from 'kube-loom-sdk';
import { describe, expect, it } from 'vitest';
import { catsetHook, desiredOrdinals, ordinalOf, type CatSet } from './hook.ts';

const catset: CatSet = {
  apiVersion: 'examples.loom.dev/v1', kind: 'CatSet', metadata: { name: 'web', namespace: 'default' },
  spec: {
    replicas: 3, serviceName: 'web-svc', selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx', volumeMounts: [{ name: 'www', mountPath: '/www' }] }] } },
    volumeClaimTemplates: [{ metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
  },
};

/** An observed Pod of the set; `ready` writes the status a kubelet would. */
function pod(ordinal: number, ready = true): KubeObject {
  const status = ready ? { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } : { phase: 'Pending' };
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: `web-${ordinal}`, namespace: 'default' }, spec: {}, status };
}

function claim(ordinal: number): KubeObject {
  return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: `www-web-${ordinal}`, namespace: 'default' }, spec: {} };
}

/** A sync request with these observed children (v2 keys). */
function request(pods: KubeObject[], claims: KubeObject[] = [], parent: CatSet = catset) {
  const byKey = (objects: KubeObject[]) => Object.fromEntries(objects.map((o) => [`default/${o.metadata.name}`, o]));
  return { parent, children: { 'Pod.v1': byKey(pods), 'PersistentVolumeClaim.v1': byKey(claims) } };
}

const names = (children: KubeObject[] | readonly KubeObject[] | undefined, kind: string) =>
  (children ?? []).filter((c) => c.kind === kind).map((c) => c.metadata.name);

describe('catset hook', () => {
  const hook = testHook(catsetHook({ logger: false }));

  it('asks for Pod 0 and its claim first, with a stable identity and the claim mounted', async () => {
    const { statusCode, body } = await hook.sync(request([]));
    expect(statusCode).toBe(200);
    expect(body.status).toEqual({ replicas: 0, readyReplicas: 0 });
    expect(body.children).toEqual([
      {
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-0', labels: { app: 'web' } },
        spec: {
          containers: [{ name: 'nginx', image: 'nginx', volumeMounts: [{ name: 'www', mountPath: '/www' }] }],
          hostname: 'web-0', subdomain: 'web-svc', volumes: [{ name: 'www', persistentVolumeClaim: { claimName: 'www-web-0' } }],
        },
      },
      {
        apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'www-web-0', labels: { app: 'web' } },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    ]);
  });

  it.each([
    ['Pod 0 is not Ready yet', [pod(0, false)], ['web-0'], { replicas: 1, readyReplicas: 0 }],
    ['Pod 0 is Ready', [pod(0)], ['web-1', 'web-0'], { replicas: 1, readyReplicas: 1 }],
    ['Pods 0 and 1 are Ready', [pod(0), pod(1)], ['web-2', 'web-1', 'web-0'], { replicas: 2, readyReplicas: 2 }],
    ['all three are Ready', [pod(0), pod(1), pod(2)], ['web-2', 'web-1', 'web-0'], { replicas: 3, readyReplicas: 3 }],
    ['Pod 1 went missing', [pod(0), pod(2)], ['web-2', 'web-1', 'web-0'], { replicas: 2, readyReplicas: 2 }],
    ['Pod 1 went missing and Pod 0 is not Ready', [pod(0, false), pod(2)], ['web-2', 'web-0'], { replicas: 2, readyReplicas: 1 }],
  ])('scales up in order: %s', async (_case, pods, expected, status) => {
    const { body } = await hook.sync(request(pods));
    expect(names(body.children, 'Pod')).toEqual(expected);
    expect(body.status).toEqual(status);
  });

  it('scales down from the highest ordinal, one Pod at a time, and keeps every claim', async () => {
    const parent = { ...catset, spec: { ...catset.spec, replicas: 1 } };
    const { body } = await hook.sync(request([pod(0), pod(1), pod(2)], [claim(0), claim(1), claim(2)], parent));
    expect(names(body.children, 'Pod')).toEqual(['web-1', 'web-0']);
    expect(names(body.children, 'PersistentVolumeClaim')).toEqual(['www-web-0', 'www-web-1', 'www-web-2']);
  });

  it('tears the Pods down from the highest ordinal when finalizing, and is done once none is left', async () => {
    const first = await hook.finalize({ ...request([pod(0), pod(1), pod(2)], [claim(0), claim(1), claim(2)]), finalizing: true });
    expect(names(first.body.children, 'Pod')).toEqual(['web-1', 'web-0']);
    expect(first.body.finalized).toBe(false);

    const last = await hook.finalize({ ...request([], [claim(0), claim(1), claim(2)]), finalizing: true });
    expect(names(last.body.children, 'Pod')).toEqual([]);
    expect(last.body.finalized).toBe(true);
    expect(last.body.status).toEqual({ replicas: 0, readyReplicas: 0 });
  });

  it('lets a claim replace a template volume of the same name, and leaves subdomain out without a serviceName', async () => {
    const template = { ...catset.spec?.template, spec: { containers: [], volumes: [{ name: 'www', emptyDir: {} }, { name: 'tmp', emptyDir: {} }] } };
    const { serviceName: _serviceName, ...spec } = catset.spec ?? {};
    const parent = { ...catset, spec: { ...spec, template } };
    const { body } = await hook.sync(request([], [], parent));
    expect(body.children?.[0]?.spec).toEqual({
      containers: [], hostname: 'web-0',
      volumes: [{ name: 'tmp', emptyDir: {} }, { name: 'www', persistentVolumeClaim: { claimName: 'www-web-0' } }],
    });
  });

  it('answers 400 to a request without a parent', async () => {
    expect(await hook.sync({ children: {} })).toMatchObject({ statusCode: 400, body: { error: 'request.parent: is required' } });
  });
});

describe('desiredOrdinals', () => {
  const pods = (...ordinals: number[]) => new Map(ordinals.map((n) => [n, pod(n)]));

  it.each([
    [pods(), 0, []],
    [pods(), 2, [0]],
    [pods(0, 1, 2, 3), 4, [3, 2, 1, 0]],
    [pods(0, 1, 2, 3), 0, [2, 1, 0]],
    [pods(0, 5), 2, [1, 0]],
  ])('%o with %i replicas: %o', (observed, replicas, expected) => {
    expect(desiredOrdinals(observed, replicas)).toEqual(expected);
  });
});

describe('ordinalOf', () => {
  it.each([
    ['web-0', 0], ['web-12', 12], ['web-01', undefined], ['web-', undefined], ['web-x', undefined], ['api-1', undefined], [undefined, undefined],
  ])('%s → %s', (name, expected) => {
    expect(ordinalOf(name, 'web-')).toBe(expected);
  });
});
