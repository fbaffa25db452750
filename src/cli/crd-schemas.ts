/**
 * A resource type's schema as its CRD serves it, and why a JSONata read below an object of that type
 * finds nothing, for the checks that hold expressions against CRDs (expression-schemas.ts).
 */
import { closestMatch, groupOf, isRecord, type KubeObject, type ResourceRule } from '../api/index.ts';
import { lookupPath, objectSchema, type PathLookup } from './schema-paths.ts';

/** A type's schema, as its CRD serves it in the rule's version. */
export interface TypeSchema {
  /** `Website (example.com/v1)`. */
  title: string;
  /** The whole object's schema (see {@link objectSchema}). */
  root: Record<string, unknown>;
}

function versionSchema(versions: unknown, version: string): Record<string, unknown> | undefined {
  const served: unknown = Array.isArray(versions) ? versions.find((v: unknown) => isRecord(v) && v.name === version) : undefined;
  const schema: unknown = isRecord(served) && isRecord(served.schema) ? served.schema.openAPIV3Schema : undefined;
  return isRecord(schema) ? schema : undefined;
}

/** The schema the CRD among `crds` for `rule`'s group and plural gives its version, if any. */
export function crdSchema(rule: ResourceRule, crds: readonly KubeObject[]): TypeSchema | undefined {
  const version = rule.apiVersion.slice(rule.apiVersion.indexOf('/') + 1);
  for (const crd of crds) {
    const spec = isRecord(crd.spec) ? crd.spec : {};
    const names = isRecord(spec.names) ? spec.names : {};
    if (spec.group !== groupOf(rule.apiVersion) || names.plural !== rule.resource || typeof names.kind !== 'string') continue;
    // A CRD that keeps unknown fields (a legacy setting) prunes nothing: no field is certain to be missing.
    const root = spec.preserveUnknownFields === true ? undefined : versionSchema(spec.versions, version);
    return root && { title: `${names.kind} (${rule.apiVersion})`, root: objectSchema(root) };
  }
  return undefined;
}

/** ` (did you mean message?)` for the field nearest `name` where a lookup found it missing, or nothing. */
export function didYouMean(name: string, lookup: Extract<PathLookup, { reason: 'missing' }>): string {
  const meant = closestMatch(name, lookup.fields);
  return meant === undefined ? '' : ` (did you mean ${meant}?)`;
}

const ARTICLE: Readonly<Record<string, string>> = { integer: 'an' };

/**
 * Why a read of `names` below an object of `type` finds nothing, with the index of the name that
 * fails; `undefined` when it may find something. Nothing below a wildcard (`*`) is certain.
 */
export function readProblem(names: readonly string[], type: TypeSchema): { at: number; why: string } | undefined {
  const wildcard = names.indexOf('*');
  const path = wildcard < 0 ? names : names.slice(0, wildcard);
  const lookup = lookupPath(type.root, path);
  if (lookup.found) return undefined;
  if (lookup.reason === 'scalar') {
    const holder = path.slice(0, lookup.at).join('.');
    return { at: lookup.at, why: `${holder} is ${ARTICLE[lookup.type] ?? 'a'} ${lookup.type} in ${type.title}, so this reads nothing` };
  }
  return { at: lookup.at, why: `no such field in ${type.title}, so this reads nothing${didYouMean(path[lookup.at]!, lookup)}` };
}
