/**
 * A control plane started and stopped on its own, apart from the shared one: after `stop()` none of
 * its processes is left and its run directory is gone.
 */
import { existsSync } from 'node:fs';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { isPidAlive, startControlPlane } from '../src/devcluster/index.ts';

describe('startControlPlane / stop', () => {
  it('serves the API, then stops every process it started by PID', async () => {
    const plane = await startControlPlane();
    const pids = plane.processes.map((p) => p.pid);
    try {
      expect(plane.processes.map((p) => p.name)).toEqual(['etcd', 'kube-apiserver', 'kube-controller-manager']);
      expect(pids.every(isPidAlive)).toBe(true);
      const kc = new KubeConfig();
      kc.loadFromFile(plane.kubeconfigPath);
      const namespaces = await kc.makeApiClient(CoreV1Api).listNamespace();
      expect(namespaces.items.map((n) => n.metadata?.name)).toContain('kube-system');
    } finally {
      await plane.stop();
    }
    expect(pids.filter(isPidAlive)).toEqual([]);
    expect(existsSync(plane.runDir)).toBe(false);
  });
});
