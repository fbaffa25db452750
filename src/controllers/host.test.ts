import { describe, expect, it } from 'vitest';
import { snapshotOf, type ResourceType } from '../kube/index.ts';
import { resolveResource, ResourceNotFoundError, type Host } from './host.ts';

const served: ResourceType[] = [
  { apiVersion: 'examples.loom.dev/v1', resource: 'greeters', kind: 'Greeter', namespaced: true, subresources: ['status'] },
  { apiVersion: 'examples.loom.dev/v1', resource: 'widgets', kind: 'Widget', namespaced: true, subresources: [] },
  { apiVersion: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, subresources: [] },
];
/** resolveResource reads discovery only. */
const host = { discovery: () => snapshotOf(served) } as Pick<Host, 'discovery'> as Host;

function errorOf(apiVersion: string, resource: string): string {
  try {
    resolveResource(host, apiVersion, resource, 'spec.parentResource.resource');
  } catch (err) {
    expect(err).toBeInstanceOf(ResourceNotFoundError);
    return (err as Error).message;
  }
  throw new Error('resolved');
}

describe('resolveResource', () => {
  it('returns the served type', () => {
    expect(resolveResource(host, 'v1', 'configmaps').kind).toBe('ConfigMap');
  });

  it('names the field and suggests the served resource a misspelt one meant', () => {
    expect(errorOf('examples.loom.dev/v1', 'greeterz')).toBe(
      'spec.parentResource.resource: discovery does not know resource "greeterz" in apiVersion "examples.loom.dev/v1" (yet); did you mean "greeters"?',
    );
  });

  it('suggests the group version that serves the resource when the apiVersion is misspelt', () => {
    expect(errorOf('example.loom.dev/v1', 'greeters')).toMatch(/; did you mean apiVersion "examples\.loom\.dev\/v1"\?$/);
  });

  it('suggests nothing when nothing served is close', () => {
    expect(errorOf('examples.loom.dev/v1', 'databases')).toMatch(/\(yet\)$/);
  });
});
