/**
 * What loom remembers about its last server-side apply of a child, so a later sync can skip the API call
 * when nothing could have changed (docs/concepts.md, "Skipping unchanged children").
 *
 * The rule, deliberately stricter than Metacontroller's: an apply is skipped only when the observed
 * child's `uid` and `resourceVersion` both equal the record's, and the fingerprint of the new desired
 * object equals the record's `hash`. Equal hash ⇒ the hook wants exactly what loom applied last time;
 * equal `resourceVersion` ⇒ nobody (loom included) has written the object since, because every write
 * bumps it; equal `uid` ⇒ it is still the same object, not a namesake recreated in between.
 * Metacontroller compares `generation` instead when it is non-zero, which misses drift in fields that
 * do not bump generation (metadata, most built-in kinds without a spec generation). The price of using
 * `resourceVersion`: a status write by another controller also defeats the skip, costing one no-op
 * apply.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../api/json-value.ts';
import type { KubeObject } from '../api/object.ts';
import type { Readiness } from '../api/readiness/index.ts';

/** The record of one successful apply, kept by the caller (in memory) per child identity. */
export interface AppliedRecord {
  /** `metadata.uid` of the object the apply returned (absent only for an object that has none: one in a file). */
  uid: string | undefined;
  /** {@link fingerprintOf} the desired object that was applied. */
  hash: string;
  /** `metadata.resourceVersion` of the object the apply returned (absent as `uid` is). */
  resourceVersion: string | undefined;
  /**
   * The readiness of the object the apply returned, when it was judged: until the cache delivers the
   * object, a later sync judges the child by it rather than as missing. The verdict, not the object,
   * so a record stays small.
   */
  readiness?: Readiness | undefined;
}

/** A stable content hash of a desired object: the sha256 of its {@link canonicalJson}, in base64 (shorter than hex: one is kept per child). */
export function fingerprintOf(desired: KubeObject): string {
  return createHash('sha256').update(canonicalJson(desired)).digest('base64');
}

/** The record to keep after an apply of a desired object with fingerprint `hash` returned `applied`. */
export function appliedRecordOf(applied: KubeObject, hash: string): AppliedRecord | undefined {
  const { uid, resourceVersion } = applied.metadata;
  return uid && resourceVersion ? { uid, hash, resourceVersion } : undefined;
}

/**
 * True when applying the desired object with fingerprint `desiredHash` to `observed` may be skipped:
 * see the module comment for why uid, resourceVersion and hash must all match.
 */
export function isUpToDate(record: AppliedRecord | undefined, observed: KubeObject, desiredHash: string): boolean {
  if (!record) return false;
  return (
    record.uid === observed.metadata.uid &&
    record.resourceVersion === observed.metadata.resourceVersion &&
    record.hash === desiredHash
  );
}
