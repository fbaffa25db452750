/**
 * `loom validate` reports a resource that a built-in group does not serve (`resource: configmap`) only
 * for the groups its type table lists in full: this asks the real API server whether the table holds
 * every resource those groups serve, so a "no resource" it prints is never wrong on this Kubernetes.
 */
import { describe, expect, it } from 'vitest';
import { groupOf } from '../src/api/index.ts';
import { discover } from '../src/kube/discovery.ts';
import { createRestClient } from '../src/kube/rest-client.ts';
import { builtInResources, FULLY_LISTED_GROUPS } from '../src/offline/render-types.ts';
import { testKubeConfig } from './support/cluster.ts';

describe('the built-in resources loom validate knows', () => {
  it('include every resource the API server serves in each group listed in full', async () => {
    const snapshot = await discover(createRestClient({ kubeConfig: testKubeConfig() }));
    for (const group of FULLY_LISTED_GROUPS) {
      const served = new Set(snapshot.apiVersions().filter((v) => groupOf(v) === group).flatMap((v) => snapshot.resourcesIn(v)));
      expect(served.size, `the API server serves group "${group}"`).toBeGreaterThan(0);
      const listed = builtInResources(group);
      expect(listed, `group "${group}" is listed in full`).toBeDefined();
      expect([...served].filter((resource) => !listed!.includes(resource)), `resources of "${group}" the table lacks`).toEqual([]);
    }
  });

  it('are not claimed for a built-in group listed only in part', () => {
    expect(builtInResources('storage.k8s.io')).toBeUndefined();
  });
});
