import { describe, expect, it } from 'vitest';
import { groupVersionPath, resourcePath, type ResourceType } from './resource-path.ts';

const configMaps: ResourceType = { apiVersion: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, subresources: [] };
const deployments: ResourceType = { apiVersion: 'apps/v1', resource: 'deployments', kind: 'Deployment', namespaced: true, subresources: ['status'] };
const namespaces: ResourceType = { apiVersion: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, subresources: ['status'] };

describe('resourcePath', () => {
  it.each<[string, ResourceType, Parameters<typeof resourcePath>[1], string]>([
    ['core collection across namespaces', configMaps, {}, '/api/v1/configmaps'],
    ['core object', configMaps, { namespace: 'ns', name: 'a' }, '/api/v1/namespaces/ns/configmaps/a'],
    ['group object status', deployments, { namespace: 'ns', name: 'web', subresource: 'status' }, '/apis/apps/v1/namespaces/ns/deployments/web/status'],
    ['cluster-scoped ignores a namespace', namespaces, { namespace: 'x', name: 'team-a' }, '/api/v1/namespaces/team-a'],
    ['names are escaped', configMaps, { namespace: 'ns', name: 'a b' }, '/api/v1/namespaces/ns/configmaps/a%20b'],
  ])('%s', (_name, type, target, expected) => {
    expect(resourcePath(type, target)).toBe(expected);
  });

  it('separates the core group from named groups', () => {
    expect(groupVersionPath('v1')).toBe('/api/v1');
    expect(groupVersionPath('metacontroller.k8s.io/v1alpha1')).toBe('/apis/metacontroller.k8s.io/v1alpha1');
  });
});
