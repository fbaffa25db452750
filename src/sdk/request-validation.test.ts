import { describe, expect, it } from 'vitest';
import { checkCompositeRequest, checkCustomizeRequest, checkDecoratorRequest } from './request-validation.ts';

const parent = { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'a', namespace: 'ns' } };
const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } };

function errorOf(result: { ok: true } | { ok: false; error: string }): string | undefined {
  return result.ok ? undefined : result.error;
}

describe('checkCompositeRequest', () => {
  it.each<[string, unknown, string]>([
    ['a non-object body', [1, 2], 'request: expected an object, got an array'],
    ['a null body', null, 'request: expected an object, got null'],
    ['a string body', 'hello', 'request: expected an object, got a string'],
    ['no parent', { children: {} }, 'request.parent: is required'],
    ['a parent without metadata', { parent: { apiVersion: 'v1', kind: 'X' } }, 'request.parent.metadata: is required'],
    ['a numeric parent name', { parent: { ...parent, metadata: { name: 7 } } }, 'request.parent.metadata.name: expected a string, got a number'],
    ['a parent without kind', { parent: { apiVersion: 'v1', metadata: { name: 'a' } } }, 'request.parent.kind: is required'],
    ['a numeric namespace', { parent: { ...parent, metadata: { name: 'a', namespace: 1 } } }, 'request.parent.metadata.namespace: expected a string, got a number'],
    ['children as a list', { parent, children: [] }, 'request.children: expected an object, got an array'],
    ['a type group that is not a map', { parent, children: { 'ConfigMap.v1': 'x' } }, 'request.children["ConfigMap.v1"]: expected an object, got a string'],
    ['an observed non-object', { parent, children: { 'ConfigMap.v1': { c: 3 } } }, 'request.children["ConfigMap.v1"].c: expected an object, got a number'],
    [
      'an observed object without a name',
      { parent, children: { 'ConfigMap.v1': { 'ns/c': { ...configMap, metadata: {} } } } },
      'request.children["ConfigMap.v1"]["ns/c"].metadata.name: is required',
    ],
    ['related not a map', { parent, related: 'x' }, 'request.related: expected an object, got a string'],
    ['finalizing not a boolean', { parent, finalizing: 'yes' }, 'request.finalizing: expected a boolean, got a string'],
    ['controller not an object', { parent, controller: 'cc' }, 'request.controller: expected an object, got a string'],
    ['readiness not a map', { parent, readiness: [] }, 'request.readiness: expected an object, got an array'],
    ['a readiness without a status', { parent, readiness: { 'ConfigMap.v1': { c: { message: 'm' } } } }, 'request.readiness["ConfigMap.v1"].c.status: is required'],
    ['a readiness message not a string', { parent, readiness: { 'ConfigMap.v1': { c: { status: 'Current', message: 1 } } } }, 'request.readiness["ConfigMap.v1"].c.message: expected a string, got a number'],
  ])('rejects %s', (_case, body, error) => {
    expect(errorOf(checkCompositeRequest(body, false))).toBe(error);
  });

  it('lists every problem, at most ten', () => {
    const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`c${i}`, 0]));
    const error = errorOf(checkCompositeRequest({ parent: {}, children: { 'ConfigMap.v1': many } }, false)) ?? '';
    expect(error.startsWith('request.parent.apiVersion: is required; request.parent.kind: is required; request.parent.metadata: is required; ')).toBe(true);
    expect(error.split('; ')).toHaveLength(11);
    expect(error.endsWith('; and 5 more')).toBe(true);
  });

  it('fills in absent and null maps, finalizing from the hook and drops a null controller', () => {
    expect(checkCompositeRequest({ parent, related: null, controller: null }, true)).toEqual({
      ok: true,
      request: { parent, children: {}, related: {}, finalizing: true },
    });
  });

  it('keeps what was sent, in v1 and v2 key shapes alike', () => {
    const v1 = { controller: { apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name: 'cc' } }, parent, children: { 'ConfigMap.v1': { c: configMap } }, related: {}, finalizing: false };
    const v2 = { ...v1, children: { 'ConfigMap.v1': { 'ns/c': configMap } } };
    expect(checkCompositeRequest(v1, false)).toEqual({ ok: true, request: v1 });
    expect(checkCompositeRequest(v2, true)).toEqual({ ok: true, request: v2 });
  });

  it('keeps loom\'s readiness as sent', () => {
    const body = { parent, children: { 'ConfigMap.v1': { c: configMap } }, related: {}, finalizing: false, readiness: { 'ConfigMap.v1': { c: { status: 'Current', message: 'Resource is current' } } } };
    expect(checkCompositeRequest(body, false)).toEqual({ ok: true, request: body });
    expect(errorOf(checkDecoratorRequest({ object: parent, readiness: { 'ConfigMap.v1': 'x' } }, false))).toBe('request.readiness["ConfigMap.v1"]: expected an object, got a string');
  });
});

describe('checkDecoratorRequest', () => {
  it('needs object, not parent', () => {
    expect(errorOf(checkDecoratorRequest({ parent }, false))).toBe('request.object: is required');
  });

  it('checks attachments like children', () => {
    expect(errorOf(checkDecoratorRequest({ object: parent, attachments: { 'Secret.v1': null } }, false))).toBe(
      'request.attachments["Secret.v1"]: expected an object, got null',
    );
  });

  it('fills in attachments, related and finalizing', () => {
    expect(checkDecoratorRequest({ object: parent }, false)).toEqual({
      ok: true,
      request: { object: parent, attachments: {}, related: {}, finalizing: false },
    });
  });
});

describe('checkCustomizeRequest', () => {
  it('needs a parent, for decorators too', () => {
    expect(errorOf(checkCustomizeRequest({ object: parent }))).toBe('request.parent: is required');
  });

  it('passes a good request through', () => {
    expect(checkCustomizeRequest({ parent })).toEqual({ ok: true, request: { parent } });
  });
});
