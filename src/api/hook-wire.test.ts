import { describe, expect, it } from 'vitest';
import type { ResponseUnmarshalMode } from './controller-spec.ts';
import {
  HookResponseError,
  compositeRequest,
  customizeRequest,
  decodeCompositeResponse,
  decodeCustomizeResponse,
  decodeDecoratorResponse,
  decoratorRequest,
} from './hook-wire.ts';
import type { KubeObject } from './object.ts';

const controller: KubeObject = { apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name: 'widgets' }, spec: {} };
const parent: KubeObject = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'team-a' } };
const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'w-0', namespace: 'team-a' } };
const secret: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds', namespace: 'team-a' } };
const child = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: 'b' } };

/** The HookResponseError a decoder throws, so tests can look at its message and problems. */
function errorOf(decode: () => unknown): HookResponseError {
  try {
    decode();
  } catch (error) {
    if (error instanceof HookResponseError) return error;
    throw error;
  }
  throw new Error('expected a HookResponseError');
}

describe('request builders', () => {
  it('assembles a composite request with the exact field names and order', () => {
    const request = compositeRequest({
      controller,
      parent,
      children: { objects: [pod], declaredTypes: [{ apiVersion: 'v1', kind: 'Pod' }, { apiVersion: 'v1', kind: 'ConfigMap' }] },
      related: { objects: [secret], declaredTypes: [{ apiVersion: 'v1', kind: 'Secret' }] },
      version: 'v1',
      finalizing: true,
    });
    expect(Object.keys(request)).toEqual(['controller', 'parent', 'children', 'related', 'finalizing']);
    expect(request).toEqual({
      controller,
      parent,
      children: { 'Pod.v1': { 'w-0': pod }, 'ConfigMap.v1': {} },
      related: { 'Secret.v1': { creds: secret } },
      finalizing: true,
    });
    expect(request.controller).toBe(controller);
  });

  it('keys object maps by the hook version and sends related {} without a customize hook', () => {
    const request = compositeRequest({
      controller,
      parent,
      children: { objects: [pod], declaredTypes: [] },
      version: 'v2',
      finalizing: false,
    });
    expect(request.children).toEqual({ 'Pod.v1': { 'team-a/w-0': pod } });
    expect(request.related).toEqual({});
    expect(JSON.stringify(request)).toContain('"finalizing":false');
  });

  it('assembles a decorator request with object and attachments', () => {
    const target: KubeObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'viewer' } };
    const binding: KubeObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'viewer', namespace: 'team-a' } };
    const request = decoratorRequest({
      controller,
      object: target,
      attachments: { objects: [binding], declaredTypes: [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' }] },
      version: 'v1',
      finalizing: false,
    });
    expect(Object.keys(request)).toEqual(['controller', 'object', 'attachments', 'related', 'finalizing']);
    // A cluster-scoped target gets namespace/name keys even in v1.
    expect(request.attachments).toEqual({ 'RoleBinding.rbac.authorization.k8s.io/v1': { 'team-a/viewer': binding } });
    expect(request.related).toEqual({});
  });

  it('assembles a customize request with only controller and parent', () => {
    const input = { controller, parent, extra: true } as Parameters<typeof customizeRequest>[0];
    expect(customizeRequest(input)).toEqual({ controller, parent });
  });
});

describe('decodeCompositeResponse', () => {
  it('decodes a full response', () => {
    const body = { status: { replicas: 1 }, children: [child], resyncAfterSeconds: 2.5, finalized: true };
    expect(decodeCompositeResponse(body, 'strict')).toEqual({
      response: { status: { replicas: 1 }, children: [child], resyncAfterSeconds: 2.5, finalized: true },
      ignoredFields: [],
    });
  });

  it('fills absent and null fields with their zero values', () => {
    const zero = { status: null, children: [], resyncAfterSeconds: 0, finalized: false };
    expect(decodeCompositeResponse({}, 'strict').response).toEqual(zero);
    expect(decodeCompositeResponse({ status: null, children: null, resyncAfterSeconds: null, finalized: null }, 'strict').response).toEqual(zero);
  });

  it('passes desired children through as returned', () => {
    expect(decodeCompositeResponse({ children: [child] }, 'loose').response.children[0]).toBe(child);
  });

  it.each<[string, unknown, string]>([
    ['body not an object', [], '(root): expected a JSON object'],
    ['body null', null, '(root): expected a JSON object'],
    ['status a string', { status: 'ok' }, 'status: expected an object'],
    ['status a list', { status: [] }, 'status: expected an object'],
    ['children an object', { children: { a: child } }, 'children: expected an array'],
    ['child not an object', { children: [child, 'x'] }, 'children[1]: expected an object'],
    ['child null', { children: [null] }, 'children[0]: expected an object'],
    ['child without apiVersion', { children: [{ ...child, apiVersion: undefined }] }, 'children[0].apiVersion: expected a non-empty string'],
    ['child with empty kind', { children: [{ ...child, kind: '' }] }, 'children[0].kind: expected a non-empty string'],
    ['child without metadata', { children: [{ apiVersion: 'v1', kind: 'Pod' }] }, 'children[0].metadata: is required'],
    ['child with metadata a string', { children: [{ apiVersion: 'v1', kind: 'Pod', metadata: 'x' }] }, 'children[0].metadata: expected an object'],
    ['child without name', { children: [child, child, { ...child, metadata: { namespace: 'a' } }] }, 'children[2].metadata.name: expected a non-empty string'],
    ['child with a numeric name', { children: [{ ...child, metadata: { name: 7 } }] }, 'children[0].metadata.name: expected a non-empty string'],
    ['child namespace not a string', { children: [{ ...child, metadata: { name: 'a', namespace: 1 } }] }, 'children[0].metadata.namespace: expected a string'],
    ['child label not a string', { children: [{ ...child, metadata: { name: 'a', labels: { 'app.kubernetes.io/name': 1 } } }] }, 'children[0].metadata.labels["app.kubernetes.io/name"]: expected a string'],
    ['negative resyncAfterSeconds', { resyncAfterSeconds: -1 }, 'resyncAfterSeconds: expected a non-negative finite number'],
    ['resyncAfterSeconds a string', { resyncAfterSeconds: '5' }, 'resyncAfterSeconds: expected a non-negative finite number'],
    ['infinite resyncAfterSeconds', { resyncAfterSeconds: Infinity }, 'resyncAfterSeconds: expected a non-negative finite number'],
    ['NaN resyncAfterSeconds', { resyncAfterSeconds: NaN }, 'resyncAfterSeconds: expected a non-negative finite number'],
    ['finalized a string', { finalized: 'true' }, 'finalized: expected a boolean'],
  ])('rejects %s', (_name, body, message) => {
    for (const mode of ['loose', 'strict'] as const) {
      const error = errorOf(() => decodeCompositeResponse(body, mode));
      expect(error.message).toBe(message);
    }
  });

  it('names every bad field in one error', () => {
    const error = errorOf(() => decodeCompositeResponse({ status: 1, finalized: 'no', children: [{}] }, 'loose'));
    expect(error.problems.map((p) => p.path)).toEqual([
      'status',
      'children[0].apiVersion',
      'children[0].kind',
      'children[0].metadata',
      'finalized',
    ]);
    expect(error.message.split('; ')).toHaveLength(5);
  });

  it('rejects unknown top-level fields in strict mode, case-sensitively', () => {
    const error = errorOf(() => decodeCompositeResponse({ Children: [], status: {}, extra: 1 }, 'strict'));
    expect(error.message).toBe('Children: unknown field (strict mode); extra: unknown field (strict mode)');
  });

  it('ignores unknown top-level fields in loose mode and returns them', () => {
    const decoded = decodeCompositeResponse({ Children: [child], status: {}, extra: 1 }, 'loose');
    expect(decoded.ignoredFields).toEqual(['Children', 'extra']);
    expect(decoded.response.children).toEqual([]);
  });

  it('checks only top-level fields for strictness', () => {
    const decoded = decodeCompositeResponse({ status: { anything: { goes: true } }, children: [{ ...child, extra: 1 }] }, 'strict');
    expect(decoded.ignoredFields).toEqual([]);
  });
});

describe('decodeDecoratorResponse', () => {
  it('decodes labels and annotations with null deletes', () => {
    const body = { labels: { set: 'v', 'delete-me': null }, annotations: { a: 'b' }, attachments: [child], resyncAfterSeconds: 0 };
    expect(decodeDecoratorResponse(body, 'strict')).toEqual({
      response: {
        labels: { set: 'v', 'delete-me': null },
        annotations: { a: 'b' },
        status: null,
        attachments: [child],
        resyncAfterSeconds: 0,
        finalized: false,
      },
      ignoredFields: [],
    });
  });

  it('keeps status null (leave the target status alone) apart from an object', () => {
    expect(decodeDecoratorResponse({ status: null }, 'strict').response.status).toBeNull();
    expect(decodeDecoratorResponse({ status: {} }, 'strict').response.status).toEqual({});
  });

  it.each<[string, unknown, string]>([
    ['labels a list', { labels: ['a'] }, 'labels: expected an object'],
    ['label value a number', { labels: { a: 1 } }, 'labels.a: expected a string or null'],
    ['annotation value an object', { annotations: { 'example.com/x': {} } }, 'annotations["example.com/x"]: expected a string or null'],
    ['attachment without name', { attachments: [{ apiVersion: 'v1', kind: 'Service', metadata: {} }] }, 'attachments[0].metadata.name: expected a non-empty string'],
    ['children instead of attachments (strict)', { children: [] }, 'children: unknown field (strict mode)'],
    ['finalized a number', { finalized: 1 }, 'finalized: expected a boolean'],
  ])('rejects %s', (_name, body, message) => {
    expect(errorOf(() => decodeDecoratorResponse(body, 'strict')).message).toBe(message);
  });

  it('returns ignored fields in loose mode', () => {
    expect(decodeDecoratorResponse({ children: [] }, 'loose').ignoredFields).toEqual(['children']);
  });
});

describe('decodeCustomizeResponse', () => {
  it('decodes related resource rules', () => {
    const rule = {
      apiVersion: 'v1',
      resource: 'configmaps',
      labelSelector: { matchLabels: { a: 'b' } },
      namespaceSelector: { matchLabels: { team: 'x' } },
      namespace: 'global',
      names: ['settings'],
    };
    expect(decodeCustomizeResponse({ relatedResources: [rule] }, 'strict')).toEqual({ response: { relatedResources: [rule] }, ignoredFields: [] });
    expect(decodeCustomizeResponse({}, 'strict').response).toEqual({ relatedResources: [] });
  });

  it.each<[string, unknown, ResponseUnmarshalMode, string]>([
    ['relatedResources an object', { relatedResources: {} }, 'loose', 'relatedResources: expected an array'],
    ['rule not an object', { relatedResources: ['configmaps'] }, 'loose', 'relatedResources[0]: expected an object'],
    ['rule without resource', { relatedResources: [{ apiVersion: 'v1' }] }, 'loose', 'relatedResources[0].resource: expected a non-empty string'],
    ['names not strings', { relatedResources: [{ apiVersion: 'v1', resource: 'secrets', names: [1] }] }, 'loose', 'relatedResources[0].names[0]: expected a string'],
    ['bad selector operator', { relatedResources: [{ apiVersion: 'v1', resource: 'secrets', labelSelector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } }] }, 'loose', 'relatedResources[0].labelSelector.matchExpressions[0].operator: expected one of In, NotIn, Exists, DoesNotExist; got "Near"'],
    ['namespace not a string', { relatedResources: [{ apiVersion: 'v1', resource: 'secrets', namespace: 3 }] }, 'loose', 'relatedResources[0].namespace: expected a string'],
    ['unknown field in strict mode', { relatedResources: [], children: [] }, 'strict', 'children: unknown field (strict mode)'],
  ])('rejects %s', (_name, body, mode, message) => {
    expect(errorOf(() => decodeCustomizeResponse(body, mode)).message).toBe(message);
  });
});

describe('HookResponseError', () => {
  it('is an Error with its name and problems', () => {
    const error = new HookResponseError([{ path: 'status', message: 'expected an object' }]);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('HookResponseError');
    expect(error.problems).toEqual([{ path: 'status', message: 'expected an object' }]);
  });
});

describe('readiness in requests', () => {
  const data: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'data', namespace: 'team-a' } };
  const elsewhere: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'far', namespace: 'team-b' } };
  const current = { status: 'Current', message: 'Resource is current' };
  const pending = { status: 'InProgress', message: 'phase is Pending' };
  const far = { status: 'Failed', message: 'not ours to send' };
  const children = { objects: [pod, data, elsewhere], declaredTypes: [{ apiVersion: 'v1', kind: 'ConfigMap' }, { apiVersion: 'v1', kind: 'Secret' }] };

  it('keys each observed child\'s verdict exactly as children are keyed, in v1', () => {
    const request = compositeRequest({ controller, parent, children, readiness: [pending, current, far], version: 'v1', finalizing: false });
    expect(Object.keys(request)).toEqual(['controller', 'parent', 'children', 'related', 'finalizing', 'readiness']);
    // v1 under a namespaced parent: objects of other namespaces are left out of both maps.
    expect(request.children).toEqual({ 'ConfigMap.v1': { data }, 'Secret.v1': {}, 'Pod.v1': { 'w-0': pod } });
    expect(request.readiness).toEqual({ 'ConfigMap.v1': { data: current }, 'Secret.v1': {}, 'Pod.v1': { 'w-0': pending } });
  });

  it('keys them by namespace/name in v2', () => {
    const request = compositeRequest({ controller, parent, children, readiness: [pending, current, far], version: 'v2', finalizing: false });
    expect(request.readiness).toEqual({
      'ConfigMap.v1': { 'team-a/data': current, 'team-b/far': far }, 'Secret.v1': {}, 'Pod.v1': { 'team-a/w-0': pending },
    });
  });

  it('keys a decorator\'s attachments the same way', () => {
    const target: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'team-a' } };
    const request = decoratorRequest({
      controller, object: target, attachments: { objects: [data], declaredTypes: [] }, readiness: [pending], version: 'v1', finalizing: false,
    });
    expect(request.readiness).toEqual({ 'ConfigMap.v1': { data: pending } });
  });

  it('leaves the field out when no verdicts are given, so the request is Metacontroller\'s', () => {
    const request = compositeRequest({ controller, parent, children, version: 'v1', finalizing: false });
    expect('readiness' in request).toBe(false);
  });

  it('refuses verdicts that do not match the objects one for one', () => {
    expect(() => compositeRequest({ controller, parent, children, readiness: [current], version: 'v1', finalizing: false })).toThrow(/3 objects but 1 readiness/);
  });
});
