/**
 * Creates CRDs on a fresh control plane and waits until each is Established — before the
 * controller-manager starts, so its garbage collector knows their kinds from its first sync.
 */
import type { Clock } from '../engine/clock.ts';
import { createRestClient, loadKubeConfig, waitForCrdsEstablished } from '../kube/index.ts';

/** What to create and where. */
export interface CreateCrdsInput {
  kubeconfigPath: string;
  crds: readonly object[];
  clock: Clock;
  signal?: AbortSignal | undefined;
}

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/**
 * Who the CRDs are recorded as written by. A write naming nobody is recorded under the first word of
 * the User-Agent, `loom`, whose `loom run` would then take these fields over as its own.
 */
export const DEVCLUSTER_FIELD_MANAGER = 'loom-devcluster';

/** Creates every CRD, then waits for all to be Established. */
export async function createCrds(input: CreateCrdsInput): Promise<void> {
  const client = createRestClient({ kubeConfig: loadKubeConfig({ path: input.kubeconfigPath }) });
  const names: string[] = [];
  for (const crd of input.crds) {
    const created = await client.request<{ metadata: { name: string } }>({
      method: 'POST', path: CRD_PATH, query: { fieldManager: DEVCLUSTER_FIELD_MANAGER }, body: crd, signal: input.signal,
    });
    names.push(created.metadata.name);
  }
  await waitForCrdsEstablished(client, names, { sleep: (ms, signal) => input.clock.sleep(ms, signal), signal: input.signal });
}
