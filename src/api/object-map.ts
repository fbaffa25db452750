/**
 * The object maps of hook requests (`children`, `attachments`, `related`; docs/hook-protocol.md,
 * "Object maps and hook versions"): outer key `<Kind>.<apiVersion>`, inner key depending on the hook
 * version. Hooks index into these maps by key, so the keys must match Metacontroller's exactly.
 */
import type { HookVersion } from './controller-spec.ts';
import type { KubeObject } from './object.ts';
import { objectKey } from './object.ts';

/** `{ "Pod.v1": { "<key>": Pod } }`, objects exactly as cached. */
export type ObjectMap = Record<string, Record<string, KubeObject>>;

/** A map keyed as an {@link ObjectMap} whose values say something about each object (its readiness, say). */
export type KeyedMap<T> = Record<string, Record<string, T>>;

/** A type as hooks see it: `apiVersion` (the version objects are presented in) and `kind`. */
export interface TypeRef {
  apiVersion: string;
  kind: string;
}

/** Outer key of an object map: `Pod.v1`, `StatefulSet.apps/v1`, `CatSet.ctl.enisoc.com/v1`. */
export function typeKey(kind: string, apiVersion: string): string {
  return `${kind}.${apiVersion}`;
}

/** Options of {@link buildObjectMap}. */
export interface BuildObjectMapOptions {
  objects: readonly KubeObject[];
  /** Types that get an entry even when empty (every declared child/attachment type). */
  declaredTypes: readonly TypeRef[];
  version: HookVersion;
  /** The parent's namespace; absent or `''` for a cluster-scoped parent. */
  parentNamespace?: string | undefined;
}

/**
 * Inner key of `obj` in a map for a parent in `parentNamespace`, or `undefined` when the object is
 * left out of the request.
 *
 * - v1, namespaced parent: `name`; objects in other namespaces and cluster-scoped objects are left
 *   out (Metacontroller's "RelativeObjectMap").
 * - v1, cluster-scoped parent: `namespace/name`, or `name` for cluster-scoped objects.
 * - v2 (any parent): `namespace/name`, or `name` for cluster-scoped objects ("UniformObjectMap").
 */
export function objectMapKey(obj: KubeObject, version: HookVersion, parentNamespace?: string): string | undefined {
  const name = obj.metadata.name ?? '';
  const namespace = obj.metadata.namespace || undefined;
  if (version === 'v1' && parentNamespace) return namespace === parentNamespace ? name : undefined;
  return objectKey(namespace, name);
}

/**
 * Builds an object map. Every declared type is present (possibly `{}`); an object of a type that was
 * not declared still gets its own entry under its own `Kind.apiVersion`, as in Metacontroller.
 * Objects are passed through unchanged (same references).
 */
export function buildObjectMap(options: BuildObjectMapOptions): ObjectMap {
  return buildKeyedMap(options, (obj) => obj);
}

/**
 * A map keyed exactly as {@link buildObjectMap} keys `options` (same types, same inner keys, same
 * objects left out), holding `valueOf(obj, i)` for the `i`-th object instead of the object.
 */
export function buildKeyedMap<T>(options: BuildObjectMapOptions, valueOf: (obj: KubeObject, index: number) => T): KeyedMap<T> {
  const { objects, declaredTypes, version, parentNamespace } = options;
  const map: KeyedMap<T> = {};
  for (const type of declaredTypes) map[typeKey(type.kind, type.apiVersion)] ??= {};
  objects.forEach((obj, index) => {
    const key = objectMapKey(obj, version, parentNamespace);
    if (key === undefined) return;
    const group = (map[typeKey(obj.kind, obj.apiVersion)] ??= {});
    group[key] = valueOf(obj, index);
  });
  return map;
}
