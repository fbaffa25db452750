/**
 * A CompositeController hook written with the hook SDK, as a user writes one for `loom render
 * --hook-module`: a Palette gets one ConfigMap per replica, each holding the palette's colour, and
 * its status counts the ConfigMaps observed.
 */
import { childrenOf, createHookServer, desired, type CompositeRequest, type HookServer, type KubeObject } from 'kube-loom-sdk';

interface Palette extends KubeObject {
  spec: { replicas: number; color: string };
}

function paletteSync(request: CompositeRequest<Palette, 'ConfigMap.v1'>) {
  const { metadata, spec } = request.parent;
  return {
    status: { replicas: spec.replicas, observed: childrenOf(request, 'ConfigMap.v1').length },
    children: Array.from({ length: spec.replicas }, (_, i) => desired({ apiVersion: 'v1', kind: 'ConfigMap', name: `${metadata.name}-${i}`, data: { color: spec.color } })),
  };
}

/** The default export `--hook-module` loads: a quiet server, called in-process, never listening. */
export default (): HookServer => createHookServer({ logger: false, composite: { sync: paletteSync } });
