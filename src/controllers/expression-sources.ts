/**
 * JSONata expressions held in ConfigMaps (`jsonata.configMapRef`). Texts are read from the shared
 * ConfigMap cache, and a change to a referenced key asks for the controller to be restarted — so an
 * edited ConfigMap takes effect without restarting loom, and a fixed one revives a controller whose
 * expression did not compile.
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
  /** Lets go of the ConfigMap cache. */
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
  let lease: InformerLease | undefined;

  const changed = (previous: KubeObject | undefined, current: KubeObject | undefined): void => {
    // The first list is not a change: engines read the texts only after it has completed.
    if (!lease?.informer.hasSynced()) return;
    const cm = current ?? previous;
    const at = keyOf(cm?.metadata.namespace, cm?.metadata.name);
    for (const [controller, refs] of users) {
      const affected = refs.some((ref) => keyOf(ref.namespace, ref.name) === at && textOf(previous, ref.key) !== textOf(current, ref.key));
      if (affected) onChange(controller);
    }
  };
  const informer = () => {
    if (!lease) {
      lease = host.informers.acquire(resolveResource(host, 'v1', 'configmaps'));
      lease.informer.subscribe({
        onAdd: (cm) => changed(undefined, cm),
        onUpdate: (previous, cm) => changed(previous, cm),
        onDelete: (cm) => changed(cm, undefined),
      });
    }
    return lease.informer;
  };

  return {
    async read(ref) {
      const cache = informer();
      await cache.whenSynced();
      const configMap = cache.store.get(keyOf(ref.namespace, ref.name));
      if (!configMap) throw new Error(`ConfigMap ${ref.namespace}/${ref.name} (jsonata.configMapRef) does not exist`);
      const text = textOf(configMap, ref.key);
      if (text === undefined) throw new Error(`ConfigMap ${ref.namespace}/${ref.name} has no key "${ref.key}" (jsonata.configMapRef)`);
      return text;
    },
    track(name, refs) {
      if (refs.length === 0) users.delete(name);
      else {
        users.set(name, refs);
        informer();
      }
    },
    release() {
      lease?.release();
      lease = undefined;
    },
  };
}
