/**
 * The paths a JSONata sync or finalize hook reads from its request's `children` (`attachments`) map,
 * directly or through loom's `$child(children, key, name)`, held against the declared types: the
 * outer key (`"ConfigMap.v1"`, Kind.apiVersion) must be one a declared type has, when every declared type's kind is known (from the CRDs given or the built-in
 * types); below the inner key (an object's name, or `*`), the fields must be in the type's CRD schema.
 */
import { closestMatch, type KubeObject, type ResourceRule } from '../api/index.ts';
import { crdSchema, readProblem, type TypeSchema } from './crd-schemas.ts';
import { declaredTypes } from './declared-types.ts';
import { fieldReads, type FieldRead } from './expression-reads.ts';

/** The declared types and the field that declares them. */
export interface DeclaredChildren {
  field: 'childResources' | 'attachments';
  rules: readonly ResourceRule[];
}

/** A declared type: its map key (`undefined` when its kind is unknown) and its CRD's schema, if given. */
interface ChildType {
  key: string | undefined;
  schema: TypeSchema | undefined;
}

function childTypes(declared: DeclaredChildren, crds: readonly KubeObject[]): ChildType[] {
  return declaredTypes(declared.rules, crds).map(({ rule, kind }) => ({
    key: kind === undefined ? undefined : `${kind}.${rule.apiVersion}`,
    schema: crdSchema(rule, crds),
  }));
}

function problemOf(read: FieldRead, types: readonly ChildType[], declared: DeclaredChildren): { at: number; why: string } | undefined {
  const [outer, , ...fields] = read.names;
  if (outer === undefined || outer === '*') return undefined;
  const type = types.find((t) => t.key === outer);
  if (type === undefined) {
    // A type whose kind is unknown may have this key.
    const keys = types.map((t) => t.key);
    if (!keys.every((key) => key !== undefined)) return undefined;
    const meant = closestMatch(outer, keys);
    return { at: 0, why: `no type among spec.${declared.field} has this key, so this reads nothing${meant === undefined ? '' : ` (did you mean ${meant}?)`}` };
  }
  const problem = type.schema === undefined ? undefined : readProblem(fields, type.schema);
  return problem && { at: problem.at + 2, why: problem.why };
}

/** `children."Website.example.com/v1".*.spec`: the outer key quoted, as JSONata needs it. */
function pathText(input: string, names: readonly string[]): string {
  const [outer, ...rest] = names;
  return [input, `"${outer}"`, ...rest].join('.');
}

/** One message per read of the children map that finds nothing (see the module comment). */
export function childReadProblems(expression: string, declared: DeclaredChildren, crds: readonly KubeObject[]): string[] {
  const input = declared.field === 'childResources' ? 'children' : 'attachments';
  const types = childTypes(declared, crds);
  const messages = fieldReads(expression, input).flatMap((read) => {
    const problem = problemOf(read, types, declared);
    if (problem === undefined) return [];
    const { line, column } = read.places[problem.at]!;
    return [`line ${line}, column ${column}: ${pathText(input, read.names.slice(0, problem.at + 1))}: ${problem.why}`];
  });
  // A `$child(children, key, …).field` read is also read as its key alone: one message each.
  return [...new Set(messages)];
}
