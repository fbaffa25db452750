/**
 * Webhook credentials from loom's shared informer caches: the {@link CredentialReader} the webhook
 * runners read Secrets and ConfigMaps through at call time, so a rotated Secret takes effect on the
 * next call without touching the controller object (Metacontroller reads them once, at controller
 * start). Each cache holds just the one object a webhook refers to (a watch narrowed to its namespace
 * and name), so loom never caches every Secret in the cluster and its RBAC can name the Secrets it
 * reads; the caches are released with the runner.
 */
import { objectKey, type KubeObject, type ObjectReference } from '../api/index.ts';
import type { CredentialKind, CredentialReader, CredentialRef } from '../hooks/index.ts';
import type { Informer, InformerLease } from '../kube/index.ts';
import { resolveResource, type Host } from './host.ts';

/** A {@link CredentialReader} holding informer leases; `release` when its runner is done. */
export interface WebhookCredentialSource extends CredentialReader {
  /** The caches it reads: the controller waits for them to fill before it starts. */
  readonly caches: readonly InformerLease[];
  /** Lets go of the caches. Idempotent. */
  release(): void;
}

const RESOURCES: Readonly<Record<CredentialKind, string>> = { Secret: 'secrets', ConfigMap: 'configmaps' };

type Data = ReadonlyMap<string, Buffer>;

function entriesOf(field: unknown, encoding: BufferEncoding): [string, Buffer][] {
  if (typeof field !== 'object' || field === null) return [];
  return Object.entries(field as Record<string, unknown>)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
    .map(([key, value]) => [key, Buffer.from(value, encoding)]);
}

/** A Secret's `data` is base64; a ConfigMap has text `data` and base64 `binaryData`. */
function decode(kind: CredentialKind, obj: KubeObject): Data {
  if (kind === 'Secret') return new Map(entriesOf(obj.data, 'base64'));
  return new Map([...entriesOf(obj.binaryData, 'base64'), ...entriesOf(obj.data, 'utf8')]);
}

/** Waits for the first list, or rejects with the signal's reason. */
async function synced(informer: Informer, signal: AbortSignal): Promise<void> {
  if (informer.hasSynced()) return;
  signal.throwIfAborted();
  const { promise, resolve, reject } = Promise.withResolvers<void>();
  const onAbort = (): void => reject(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  informer.whenSynced().then(resolve, reject);
  try {
    await promise;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

const refKey = (kind: string, ref: { namespace: string; name: string }) => `${kind}/${ref.namespace}/${ref.name}`;

/**
 * Acquires the cache of each object `refs` names now, so they fill while the controller starts (which
 * waits for them, and fails naming them when loom may not list them). Throws
 * `ResourceNotFoundError` when discovery does not serve them (yet); nothing is held then.
 */
export function createWebhookCredentialSource(host: Host, refs: readonly CredentialRef[]): WebhookCredentialSource {
  const types = new Map([...new Set(refs.map((ref) => ref.kind))].map((kind) => [kind, resolveResource(host, 'v1', RESOURCES[kind])] as const));
  const leases = new Map<string, InformerLease>();
  for (const ref of refs) {
    const key = refKey(ref.kind, ref);
    if (!leases.has(key)) leases.set(key, host.informers.acquire(types.get(ref.kind)!, { namespace: ref.namespace, name: ref.name }));
  }
  // Store objects are replaced, never changed, on update: decoding once per object version is enough.
  const decoded = new WeakMap<KubeObject, Data>();
  return {
    caches: [...leases.values()],
    async read(kind: CredentialKind, ref: ObjectReference, signal: AbortSignal) {
      const lease = leases.get(refKey(kind, ref));
      if (!lease) throw new Error(`no cache was acquired for ${kind} ${ref.namespace}/${ref.name}`);
      await synced(lease.informer, signal);
      const obj = lease.informer.store.get(objectKey(ref.namespace, ref.name));
      if (!obj) return undefined;
      let data = decoded.get(obj);
      if (!data) decoded.set(obj, (data = decode(kind, obj)));
      return data;
    },
    release() {
      for (const lease of leases.values()) lease.release();
      leases.clear();
    },
  };
}
