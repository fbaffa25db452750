/**
 * The spans inside a sync's trace (README, "Traces"): one per hook call and one per API write or read,
 * made by wrapping the ports a controller works through, so the sync code itself knows nothing of
 * tracing. Calls made outside a sync (a controller's own status, a Lease) start no trace.
 */
import type { KubeObject } from '../api/index.ts';
import type { SpanAttributes, Tracing } from '../engine/index.ts';
import type { HookKind, HookRunner } from '../hooks/index.ts';
import type { ObjectRef, ObjectWriter } from '../kube/index.ts';

function objectAttributes(ref: ObjectRef | KubeObject): SpanAttributes {
  const { apiVersion, kind } = ref;
  const { namespace, name } = 'metadata' in ref ? ref.metadata : ref;
  return { 'k8s.api_version': apiVersion, 'k8s.kind': kind, 'k8s.namespace': namespace, 'k8s.name': name };
}

/** `writer`, with a span around each request: `apply ConfigMap`, `delete Pod`, `status Widget`. */
export function tracedWriter(writer: ObjectWriter, tracing: Tracing): ObjectWriter {
  const span = <T>(verb: string, target: ObjectRef | KubeObject, fn: () => Promise<T>): Promise<T> =>
    tracing.inChildSpan(`${verb} ${target.kind}`, objectAttributes(target), fn);
  return {
    apply: (obj, options) => span('apply', obj, () => writer.apply(obj, options)),
    create: (obj, options) => span('create', obj, () => writer.create(obj, options)),
    replace: (obj, options) => span('update', obj, () => writer.replace(obj, options)),
    replaceStatus: (obj, options) => span('status', obj, () => writer.replaceStatus(obj, options)),
    patchJson: (ref, operations, options) => span('patch', ref, () => writer.patchJson(ref, operations, options)),
    delete: (ref, options) => span('delete', ref, () => writer.delete(ref, options)),
    get: (ref, options) => span('get', ref, () => writer.get(ref, options)),
  };
}

/**
 * `runner`, with a span around each call (`hook sync`), naming what ran it. A sync or finalize call
 * also tells the sync's span which of the two the parent got: its `loom.decision`.
 */
export function tracedRunner(runner: HookRunner, tracing: Tracing, hook: HookKind, attributes: SpanAttributes): HookRunner {
  return {
    call(request, signal) {
      if (hook !== 'customize') tracing.annotate({ 'loom.decision': hook });
      return tracing.inChildSpan(`hook ${hook}`, { 'loom.hook': hook, ...attributes }, () => runner.call(request, signal));
    },
  };
}
