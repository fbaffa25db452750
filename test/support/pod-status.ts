/**
 * Pod status written by the test, as a kubelet would write it (the test control plane has none). The
 * workload controllers roll it up themselves: a Ready pod makes its ReplicaSet and Deployment report
 * ready replicas, a Succeeded pod makes its Job complete. Writing a workload's own status instead
 * does not hold: its controller recomputes it from its pods and puts back what they say.
 */
import type { KubeObject } from '../../src/api/index.ts';
import { systemClock } from '../../src/engine/index.ts';
import { eventually } from './cluster.ts';
import type { TestClients } from './loom.ts';

/** The pods of `namespace` matching `labelSelector`, once there is at least one. */
export function podsOf(clients: TestClients, namespace: string, labelSelector: string): Promise<KubeObject[]> {
  return eventually(async () => {
    const list = await clients.client.request<{ items: KubeObject[] }>({ method: 'GET', path: `/api/v1/namespaces/${namespace}/pods`, query: { labelSelector } });
    return list.items.length > 0 ? list.items : undefined;
  }, `pods matching ${labelSelector}`);
}

/** Reports every pod matching `labelSelector` as `Running` and Ready, or as `Succeeded`. */
export async function reportPods(clients: TestClients, namespace: string, labelSelector: string, phase: 'Running' | 'Succeeded'): Promise<void> {
  const now = new Date(systemClock.now()).toISOString();
  const ready = phase === 'Running' ? 'True' : 'False';
  const conditions = ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({ type, status: type === 'PodScheduled' || type === 'Initialized' ? 'True' : ready, lastTransitionTime: now }));
  for (const pod of await podsOf(clients, namespace, labelSelector)) {
    await clients.client.request({
      method: 'PUT', path: `/api/v1/namespaces/${namespace}/pods/${pod.metadata.name}/status`,
      body: { ...pod, status: { ...(pod.status as object), phase, conditions, startTime: now } },
    });
  }
}
