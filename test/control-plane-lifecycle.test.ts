/**
 * A control plane started and stopped on its own, apart from the shared one: after `stop()` none of
 * its processes is left and its run directory is gone, and a watch still open does not hold the stop.
 */
import { existsSync } from 'node:fs';
import { CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { isPidAlive, startControlPlane } from '../src/devcluster/index.ts';

/** SIGTERM to SIGKILL: under the 60 s kube-apiserver allows its own HTTP server to shut down. */
const STOP_GRACE_MS = 50_000;

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

  it('ends an open watch and exits on SIGTERM by itself, not by SIGKILL', async () => {
    const plane = await startControlPlane();
    let watchEnded: Promise<unknown> = Promise.resolve();
    try {
      const kc = new KubeConfig();
      kc.loadFromFile(plane.kubeconfigPath);
      // A client that never closes its watch, as a test's informer or a leftover loom process may be.
      const opened = new Promise<void>((resolve) => {
        watchEnded = new Promise((ended) => {
          void new Watch(kc).watch('/api/v1/namespaces', {}, () => resolve(), ended);
        });
      });
      await opened;
    } finally {
      // A long grace (under the API server's own 60 s shutdown timeout), so that on a loaded machine
      // a slow but orderly exit is not cut short by SIGKILL: the point is that it exits by itself.
      await plane.stop({ graceMs: STOP_GRACE_MS });
    }
    const apiServer = plane.processes.find((p) => p.name === 'kube-apiserver');
    // Exited on its own (code 0): the watch did not keep it waiting until the grace period ran out.
    expect(apiServer?.exitStatus()).toEqual({ code: 0, signal: null });
    await watchEnded;
  });
});
