/**
 * JSONata expressions held in ConfigMaps (`jsonata.configMapRef`). Each referenced ConfigMap has a
 * cache of its own, narrowed to it (loom never caches every ConfigMap, and its RBAC can name them),
 * and a change to a referenced key asks for the controller to be restarted — so an edited ConfigMap
 * takes effect without restarting loom, and a fixed one revives a controller whose expression did not
 * compile.
 */
import type { Hook, KeyReference, KubeObject } from '../api/index.ts';
import type { InformerLease } from '../kube/index.ts';
import { resolveResource, type Host } from './host.ts';

/** Reads and watches the ConfigMaps behind controllers' expressions. */
export interface ExpressionSources {
  /** The text at `ref`; throws with the ConfigMap and key named when either is missing. */
  read(ref: KeyReference): Promise<string>;
  /** Replaces the references controller `name` depends on (an empty list forgets it). */
  track(name: string, refs: readonly KeyReference[]): void;
  /** Lets go of the ConfigMap caches. */
  release(): void;
}

/** Every `configMapRef` among a controller's hooks. */
export function configMapRefsOf(hooks: { sync?: Hook | undefined; finalize?: Hook | undefined; customize?: Hook | undefined }): KeyReference[] {
  return [hooks.sync, hooks.finalize, hooks.customize].flatMap((hook) => (hook?.jsonata?.configMapRef ? [hook.jsonata.configMapRef] : []));
}

const keyOf = (namespace: string | undefined, name: string | undefined) => `${namespace ?? ''}/${name ?? ''}`;

function textOf(configMap: KubeObject | undefined, key: string): string | undefined {
  return (configMap?.data as Record<string, string> | undefined)?.[key];
}

/** Creates the sources; `onChange(controller)` is called when a ConfigMap a controller uses changes. */
export function createExpressionSources(host: Host, onChange: (controller: string) => void): ExpressionSources {
  const users = new Map<string, readonly KeyReference[]>();
  /** One narrowed cache per referenced ConfigMap, by `namespace/name`. */
  const leases = new Map<string, InformerLease>();

  const changed = (previous: KubeObject | undefined, current: KubeObject | undefined): void => {
    const cm = current ?? previous;
    const at = keyOf(cm?.metadata.namespace, cm?.metadata.name);
    // The first list is not a change: controllers read the texts only after it has completed.
    if (!leases.get(at)?.informer.hasSynced()) return;
    for (const [controller, refs] of users) {
      const affected = refs.some((ref) => keyOf(ref.namespace, ref.name) === at && textOf(previous, ref.key) !== textOf(current, ref.key));
      if (affected) onChange(controller);
    }
  };
  const informerOf = (ref: KeyReference) => {
    const key = keyOf(ref.namespace, ref.name);
    let lease = leases.get(key);
    if (!lease) {
      lease = host.informers.acquire(resolveResource(host, 'v1', 'configmaps'), { namespace: ref.namespace, name: ref.name });
      leases.set(key, lease);
      lease.informer.subscribe({
        onAdd: (cm) => changed(undefined, cm),
        onUpdate: (previous, cm) => changed(previous, cm),
        onDelete: (cm) => changed(cm, undefined),
      });
    }
    return lease.informer;
  };
  /** Lets go of the caches no controller refers to any more. */
  const prune = (): void => {
    const needed = new Set([...users.values()].flat().map((ref) => keyOf(ref.namespace, ref.name)));
    for (const [key, lease] of leases) {
      if (needed.has(key)) continue;
      lease.release();
      leases.delete(key);
    }
  };

  return {
    async read(ref) {
      const cache = informerOf(ref);
      await cache.whenSynced();
      const configMap = cache.store.get(keyOf(ref.namespace, ref.name));
      if (!configMap) throw new Error(`ConfigMap ${ref.namespace}/${ref.name} (jsonata.configMapRef) does not exist`);
      const text = textOf(configMap, ref.key);
      if (text === undefined) throw new Error(`ConfigMap ${ref.namespace}/${ref.name} has no key "${ref.key}" (jsonata.configMapRef)`);
      return text;
    },
    track(name, refs) {
      // A reference --reference-namespaces forbids is refused when the controller starts; never watch it.
      const allowed = host.settings.referenceNamespaces;
      const watched = allowed === undefined ? refs : refs.filter((ref) => allowed.includes(ref.namespace));
      if (watched.length === 0) users.delete(name);
      else users.set(name, watched);
      for (const ref of watched) informerOf(ref);
      prune();
    },
    release() {
      for (const lease of leases.values()) lease.release();
      leases.clear();
    },
  };
}
