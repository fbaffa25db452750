/**
 * The objects the API server answered loom's child writes with: ordered writes judge a predecessor's
 * readiness from them (docs/ordering-and-readiness.md, "Order: waves and dependsOn"), as the cache has
 * not seen the writes yet. Taken at the writer, so executing a plan (`apply/execute-plan.ts`) stays as
 * it is: whatever way a decision writes its child, the last answer for that child is the one kept.
 */
import type { KubeObject } from '../api/index.ts';
import type { ObjectWriter } from '../kube/index.ts';

/** A writer that keeps the answers of its writes, and what it kept. */
export interface RecordingWriter {
  writer: ObjectWriter;
  /** The last object a write of the child named by `key` answered with (`keyOf` of the answer), if any. */
  writtenOf: (key: string) => KubeObject | undefined;
}

/**
 * Wraps `writer`, keeping each non-dry-run answer of an apply, create, replace or JSON patch under
 * `keyOf(answer)`. Dry runs answer with what would be, not what is, so they are not kept.
 */
export function recordingWriter(writer: ObjectWriter, keyOf: (obj: KubeObject) => string): RecordingWriter {
  const written = new Map<string, KubeObject>();
  const keep = (dryRun: boolean | undefined) => (obj: KubeObject): KubeObject => {
    if (!dryRun) written.set(keyOf(obj), obj);
    return obj;
  };
  return {
    writer: {
      apply: (obj, options) => writer.apply(obj, options).then(keep(options.dryRun)),
      create: (obj, options) => writer.create(obj, options).then(keep(options?.dryRun)),
      replace: (obj, options) => writer.replace(obj, options).then(keep(false)),
      replaceStatus: (obj, options) => writer.replaceStatus(obj, options),
      patchJson: (ref, operations, options) => writer.patchJson(ref, operations, options).then(keep(false)),
      delete: (ref, options) => writer.delete(ref, options),
      get: (ref, options) => writer.get(ref, options),
    },
    writtenOf: (key) => written.get(key),
  };
}
