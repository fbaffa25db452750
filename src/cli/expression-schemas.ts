/**
 * `loom validate` holds an inline JSONata hook against its parent's CRD (when that CRD is among the
 * validated files): every path it reads from the parent must name a field of the schema, or it reads
 * nothing; every literal field of the status a sync or finalize answer writes must be in the status
 * schema, or the API server drops it. Only what the schema makes certain is reported (see
 * schema-paths.ts, expression-reads.ts, literal-status.ts).
 */
import { closestMatch, groupOf, isRecord, type FieldProblem, type Hook, type KubeObject, type ResourceRule } from '../api/index.ts';
import { fieldReads } from './expression-reads.ts';
import { literalStatusFields } from './literal-status.ts';
import { lookupPath, objectSchema, type PathLookup } from './schema-paths.ts';

/** What the check needs of a parsed controller. */
export interface SchemaCheckedController {
  /**
   * The field of a sync or finalize request the parent is in: `parent` (CompositeController) or
   * `object` (DecoratorController). A customize request names it `parent` for both.
   */
  input: 'parent' | 'object';
  /** The parent types: a CompositeController's `parentResource`; a DecoratorController's `resources` (checked when only one). */
  parents: readonly ResourceRule[];
  hooks: { sync?: Hook | undefined; finalize?: Hook | undefined; customize?: Hook | undefined };
}

/** A parent type's schema, as its CRD serves it in the rule's version. */
interface ParentSchema {
  /** `Website (example.com/v1)`. */
  title: string;
  root: Record<string, unknown>;
}

function versionSchema(versions: unknown, version: string): Record<string, unknown> | undefined {
  const served: unknown = Array.isArray(versions) ? versions.find((v: unknown) => isRecord(v) && v.name === version) : undefined;
  const schema: unknown = isRecord(served) && isRecord(served.schema) ? served.schema.openAPIV3Schema : undefined;
  return isRecord(schema) ? schema : undefined;
}

/** The schema the CRD among `crds` for `rule`'s group and plural gives its version, if any. */
function parentSchema(rule: ResourceRule, crds: readonly KubeObject[]): ParentSchema | undefined {
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

function meaning(name: string, lookup: Extract<PathLookup, { reason: 'missing' }>): string {
  const meant = closestMatch(name, lookup.fields);
  return meant === undefined ? '' : ` (did you mean ${meant}?)`;
}

const ARTICLE: Readonly<Record<string, string>> = { integer: 'an' };

/** Why a read of `names` below the input finds nothing, or `undefined` when it may find something. */
function readProblem(names: readonly string[], parent: ParentSchema): { at: number; why: string } | undefined {
  const lookup = lookupPath(parent.root, names);
  if (lookup.found) return undefined;
  if (lookup.reason === 'scalar') {
    const holder = names.slice(0, lookup.at).join('.');
    return { at: lookup.at, why: `${holder} is ${ARTICLE[lookup.type] ?? 'a'} ${lookup.type} in ${parent.title}, so this reads nothing` };
  }
  return { at: lookup.at, why: `no such field in ${parent.title}, so this reads nothing${meaning(names[lookup.at]!, lookup)}` };
}

function readProblems(expression: string, input: string, parent: ParentSchema): string[] {
  return fieldReads(expression, input).flatMap((read) => {
    // Below a wildcard (any field) nothing is certain.
    const wildcard = read.names.indexOf('*');
    const problem = readProblem(wildcard < 0 ? read.names : read.names.slice(0, wildcard), parent);
    if (problem === undefined) return [];
    const { line, column } = read.places[problem.at]!;
    return [`line ${line}, column ${column}: ${[input, ...read.names.slice(0, problem.at + 1)].join('.')}: ${problem.why}`];
  });
}

function statusProblems(expression: string, parent: ParentSchema): string[] {
  const status = isRecord(parent.root.properties) ? parent.root.properties.status : undefined;
  if (!isRecord(status)) return [];
  return literalStatusFields(expression).flatMap(({ names, line, column }) => {
    const lookup = lookupPath(status, names);
    // A field below one already reported (or below a scalar, which the API server refuses) is not reported again.
    if (lookup.found || lookup.reason !== 'missing' || lookup.at !== names.length - 1) return [];
    const where = `line ${line}, column ${column}: status.${names.join('.')}`;
    return [`${where}: no such field in the status schema of ${parent.title}, so the API server drops it${meaning(names.at(-1)!, lookup)}`];
  });
}

/** One problem per parent path an inline hook reads that its CRD's schema lacks, and per status field it would drop. */
export function expressionSchemaChecks(controller: SchemaCheckedController, crds: readonly KubeObject[]): { problems: FieldProblem[]; warnings: FieldProblem[] } {
  const [rule, ...others] = controller.parents;
  const parent = rule === undefined || others.length > 0 ? undefined : parentSchema(rule, crds);
  if (parent === undefined) return { problems: [], warnings: [] };
  const problems = (['sync', 'finalize', 'customize'] as const).flatMap((name) => {
    const expression = controller.hooks[name]?.jsonata?.expression ?? '';
    const messages = readProblems(expression, name === 'customize' ? 'parent' : controller.input, parent);
    // A customize answer names related resources; it has no status.
    if (name !== 'customize') messages.push(...statusProblems(expression, parent));
    return messages.map((message) => ({ path: `spec.hooks.${name}.jsonata.expression`, message }));
  });
  return { problems, warnings: [] };
}
