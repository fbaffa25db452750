/**
 * `--reference-namespaces`: which namespaces a controller may name Secrets and ConfigMaps in — webhook
 * credentials (`authorization`, `basicAuth`, `caBundle`, `clientTLS`) and JSONata `configMapRef`s.
 * Whoever may write a controller object must not be able to make loom read a Secret of any namespace
 * and send it to a URL of their choosing. An empty list (the CLI's default) allows none; absent
 * (`--reference-namespaces=*`): any namespace, as in Metacontroller.
 */

/** One reference a controller makes: what, where, and the field path that names it. */
export interface NamespacedReference {
  kind: 'Secret' | 'ConfigMap';
  namespace: string;
  name: string;
  setting: string;
}

/** A controller names a Secret or ConfigMap outside the allowed namespaces; it does not start. */
export class ReferenceNotAllowedError extends Error {
  override readonly name = 'ReferenceNotAllowedError';
}

/** Throws {@link ReferenceNotAllowedError} naming every reference outside `allowed` (absent: all allowed). */
export function checkReferences(allowed: readonly string[] | undefined, refs: readonly NamespacedReference[]): void {
  if (allowed === undefined) return;
  const outside = refs.filter((ref) => !allowed.includes(ref.namespace));
  if (outside.length === 0) return;
  const list = outside.map((ref) => `${ref.setting}: ${ref.kind} ${ref.namespace}/${ref.name} is in namespace "${ref.namespace}"`).join('; ');
  const policy = allowed.length === 0
    ? 'allows no namespace (pass --reference-namespaces=<namespace>,… to allow some, or "*" for any)'
    : `allows only ${allowed.map((n) => `"${n}"`).join(', ')}`;
  throw new ReferenceNotAllowedError(`${list}; --reference-namespaces ${policy}`);
}
