import { describe, expect, it } from 'vitest';
import { defaultUnmarshalMode, responseModeOf, type Hook } from './controller-spec.ts';
import * as api from './index.ts';
import {
  API_APPROVED_ANNOTATION,
  API_APPROVED_VALUE,
  CONTROLLER_UID_LABEL,
  DECORATOR_CONTROLLER_ANNOTATION,
  GROUP_VERSION,
  KINDS,
  LAST_APPLIED_ANNOTATION,
  REVISION_API_GROUP_LABEL,
  REVISION_RESOURCE_LABEL,
  compositeFinalizer,
  decoratorFinalizer,
} from './well-known.ts';

// These strings are an interface with existing clusters and hooks: a change here breaks users.
describe('well-known strings', () => {
  it('match Metacontroller byte for byte', () => {
    expect(GROUP_VERSION).toBe('metacontroller.k8s.io/v1alpha1');
    expect(compositeFinalizer('catset-controller')).toBe('metacontroller.io/compositecontroller-catset-controller');
    expect(decoratorFinalizer('service-per-pod')).toBe('metacontroller.io/decoratorcontroller-service-per-pod');
    expect(LAST_APPLIED_ANNOTATION).toBe('metacontroller.k8s.io/last-applied-configuration');
    expect(DECORATOR_CONTROLLER_ANNOTATION).toBe('metacontroller.k8s.io/decorator-controller');
    expect(CONTROLLER_UID_LABEL).toBe('controller-uid');
    expect(REVISION_API_GROUP_LABEL).toBe('metacontroller.k8s.io/apiGroup');
    expect(REVISION_RESOURCE_LABEL).toBe('metacontroller.k8s.io/resource');
    expect([API_APPROVED_ANNOTATION, API_APPROVED_VALUE]).toEqual(['api-approved.kubernetes.io', 'unapproved, request not yet submitted']);
    expect(Object.values(KINDS).map((k) => `${k.kind}/${k.resource}`)).toEqual([
      'CompositeController/compositecontrollers',
      'DecoratorController/decoratorcontrollers',
      'ControllerRevision/controllerrevisions',
    ]);
  });
});

describe('response decoding mode', () => {
  it('defaults to loose for v1 and strict for v2', () => {
    expect(defaultUnmarshalMode('v1')).toBe('loose');
    expect(defaultUnmarshalMode('v2')).toBe('strict');
  });

  it('follows the webhook setting, else the version (JSONata hooks have no setting)', () => {
    const webhook = { url: 'http://h', timeoutMs: 1, etag: { enabled: false }, responseUnMarshallMode: 'loose' as const };
    expect(responseModeOf({ version: 'v2', webhook })).toBe('loose');
    const jsonata: Hook = { version: 'v2', jsonata: { expression: '{}', timeoutMs: 1 } };
    expect(responseModeOf(jsonata)).toBe('strict');
  });
});

describe('index', () => {
  it('exports the public surface', () => {
    for (const name of [
      'parseCompositeController',
      'parseDecoratorController',
      'parseDuration',
      'buildObjectMap',
      'typeKey',
      'decodeCompositeResponse',
      'decodeDecoratorResponse',
      'decodeCustomizeResponse',
      'compositeRequest',
      'decoratorRequest',
      'HookResponseError',
      'compositeFinalizer',
      'matchesSelector',
      'objectKey',
    ]) {
      expect(api, name).toHaveProperty(name);
    }
  });
});
