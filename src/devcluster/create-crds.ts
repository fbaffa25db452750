/**
 * Creates CRDs on a fresh control plane and waits until each is Established — before the
 * controller-manager starts, so its garbage collector knows their kinds from its first sync.
 */
import type { Clock } from '../engine/clock.ts';
import { createRestClient, loadKubeConfig } from '../kube/index.ts';
import { waitUntil } from './wait-until.ts';

/** What to create and where. */
export interface CreateCrdsInput {
  kubeconfigPath: string;
  crds: readonly object[];
  clock: Clock;
  signal?: AbortSignal | undefined;
}

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** Creates every CRD, then waits for all to be Established. */
export async function createCrds(input: CreateCrdsInput): Promise<void> {
  const client = createRestClient({ kubeConfig: loadKubeConfig({ path: input.kubeconfigPath }) });
  const names: string[] = [];
  for (const crd of input.crds) {
    const created = await client.request<{ metadata: { name: string } }>({ method: 'POST', path: CRD_PATH, body: crd, signal: input.signal });
    names.push(created.metadata.name);
  }
  for (const name of names) {
    await waitUntil(async () => {
      const crd = await client.request<{ status?: { conditions?: { type: string; status: string }[] } }>({ method: 'GET', path: `${CRD_PATH}/${name}` });
      return (crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
    }, { clock: input.clock, what: `CRD ${name} to be Established`, timeoutMs: 30_000, signal: input.signal });
  }
}
