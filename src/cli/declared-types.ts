/**
 * The child types a controller declares, with their kinds as far as `loom validate` can tell them
 * offline: from the CRDs among the validated files and the built-in types. A type neither names has
 * no known kind; a kind is then matched by its regular plural, which is only a guess.
 */
import { groupOf, isRecord, type KubeObject, type ResourceRule } from '../api/index.ts';
import { builtInKinds, regularPlural, typeCatalog } from '../offline/render-types.ts';

/** One declared type. */
export interface DeclaredType<Rule extends ResourceRule> {
  rule: Rule;
  /** Its API group; `''` is the core group. */
  group: string;
  /** `undefined`: no CRD given and not a built-in type. */
  kind: string | undefined;
}

/** The types `rules` declare, in their order. */
export function declaredTypes<Rule extends ResourceRule>(rules: readonly Rule[], crds: readonly KubeObject[]): DeclaredType<Rule>[] {
  const catalog = typeCatalog({ crds, examples: [] });
  return rules.map((rule) => ({ rule, group: groupOf(rule.apiVersion), kind: catalog.resolve(rule)?.kind }));
}

/** Whether `type` is of `kind`: `true`, `false`, or `'guess'` when its kind is unknown and the regular plural does not tell. */
export function isOfKind(type: DeclaredType<ResourceRule>, kind: string): boolean | 'guess' {
  if (type.kind !== undefined) return type.kind === kind;
  return regularPlural(kind) === type.rule.resource || 'guess';
}

/**
 * Whether `type` is the type of an object of `kind` (and `apiVersion`, when known): `true`, `false`,
 * or `'guess'` when the type's kind is unknown and the regular plural does not tell.
 */
export function declares(type: DeclaredType<ResourceRule>, object: { kind: string; apiVersion?: string | undefined }): boolean | 'guess' {
  if (object.apiVersion !== undefined && groupOf(object.apiVersion) !== type.group) return false;
  return isOfKind(type, object.kind);
}

/** Every kind `validate` knows of offline: the declared types' (first), the CRDs' among the files, the built-in ones. */
export function knownKinds(types: readonly DeclaredType<ResourceRule>[], crds: readonly KubeObject[]): string[] {
  const fromCrds = crds.map((crd) => (isRecord(crd.spec) && isRecord(crd.spec.names) ? crd.spec.names.kind : undefined));
  const kinds = [...types.map((type) => type.kind), ...fromCrds, ...builtInKinds()];
  return [...new Set(kinds.filter((kind): kind is string => typeof kind === 'string'))];
}

/** `batch`, or `the core group`. */
export function groupName(group: string): string {
  return group === '' ? 'the core group' : group;
}
