/**
 * Waiting for CustomResourceDefinitions to be served. A created CRD is usable only once its
 * `Established` condition is `True`; creating objects of its kind before that fails.
 */
import type { RestClient } from './rest-client.ts';

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const POLL_MS = 100;

interface CrdStatus {
  status?: { conditions?: { type: string; status: string }[] };
}

/** True when `crd` reports `Established=True`. */
export function isEstablished(crd: CrdStatus | undefined): boolean {
  return (crd?.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
}

/** How to wait. */
export interface WaitForCrdsOptions {
  /** Waits between polls; injected so no timer hides here. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  timeoutMs?: number;
  signal?: AbortSignal | undefined;
}

/** Resolves once every CRD in `names` is Established; rejects naming the first that is not in time. */
export async function waitForCrdsEstablished(client: RestClient, names: readonly string[], options: WaitForCrdsOptions): Promise<void> {
  const polls = Math.ceil((options.timeoutMs ?? 30_000) / POLL_MS);
  for (const name of names) {
    for (let poll = 0; ; poll++) {
      const crd = await client.request<CrdStatus>({ method: 'GET', path: `${CRD_PATH}/${name}`, signal: options.signal });
      if (isEstablished(crd)) break;
      if (poll >= polls) throw new Error(`CRD ${name} did not become Established within ${options.timeoutMs ?? 30_000} ms`);
      await options.sleep(POLL_MS, options.signal);
    }
  }
}
