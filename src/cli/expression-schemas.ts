/**
 * `loom validate` holds an inline JSONata hook against the CRDs among the validated files: every path
 * it reads from the parent must name a field of the parent's schema, or it reads nothing; every path it
 * reads from `children` must name a declared type's key, and a field of that type's CRD schema; every
 * literal field of the status a sync or finalize answer writes must be in the status schema, or the
 * API server drops it. Only what the schemas make certain is reported (see schema-paths.ts,
 * expression-reads.ts, literal-status.ts, child-reads.ts).
 */
import { isRecord, type FieldProblem, type Hook, type KubeObject, type ResourceRule } from '../api/index.ts';
import { childReadProblems, type DeclaredChildren } from './child-reads.ts';
import { crdSchema, didYouMean, readProblem, type TypeSchema } from './crd-schemas.ts';
import { fieldReads } from './expression-reads.ts';
import { literalStatusFields } from './literal-status.ts';
import { lookupPath } from './schema-paths.ts';

/** What the check needs of a parsed controller. */
export interface SchemaCheckedController {
  /**
   * The field of a sync or finalize request the parent is in: `parent` (CompositeController) or
   * `object` (DecoratorController). A customize request names it `parent` for both.
   */
  input: 'parent' | 'object';
  /** The parent types: a CompositeController's `parentResource`; a DecoratorController's `resources` (checked when only one). */
  parents: readonly ResourceRule[];
  /** The declared child (attachment) types, which sync and finalize read from `children` (`attachments`). */
  children?: DeclaredChildren;
  hooks: { sync?: Hook | undefined; finalize?: Hook | undefined; customize?: Hook | undefined };
}

function readProblems(expression: string, input: string, parent: TypeSchema | undefined): string[] {
  if (parent === undefined) return [];
  return fieldReads(expression, input).flatMap((read) => {
    const problem = readProblem(read.names, parent);
    if (problem === undefined) return [];
    const { line, column } = read.places[problem.at]!;
    return [`line ${line}, column ${column}: ${[input, ...read.names.slice(0, problem.at + 1)].join('.')}: ${problem.why}`];
  });
}

function statusProblems(expression: string, parent: TypeSchema | undefined): string[] {
  if (parent === undefined) return [];
  const status = isRecord(parent.root.properties) ? parent.root.properties.status : undefined;
  if (!isRecord(status)) return [];
  return literalStatusFields(expression).flatMap(({ names, line, column }) => {
    const lookup = lookupPath(status, names);
    // A field below one already reported (or below a scalar, which the API server refuses) is not reported again.
    if (lookup.found || lookup.reason !== 'missing' || lookup.at !== names.length - 1) return [];
    const where = `line ${line}, column ${column}: status.${names.join('.')}`;
    return [`${where}: no such field in the status schema of ${parent.title}, so the API server drops it${didYouMean(names.at(-1)!, lookup)}`];
  });
}

/** The problems of one hook's expression (see the module comment). */
function hookProblems(name: 'sync' | 'finalize' | 'customize', controller: SchemaCheckedController, parent: TypeSchema | undefined, crds: readonly KubeObject[]): string[] {
  const expression = controller.hooks[name]?.jsonata?.expression ?? '';
  if (expression === '') return [];
  const messages = readProblems(expression, name === 'customize' ? 'parent' : controller.input, parent);
  // A customize request has no children and its answer no status.
  if (name === 'customize') return messages;
  if (controller.children !== undefined) messages.push(...childReadProblems(expression, controller.children, crds));
  return [...messages, ...statusProblems(expression, parent)];
}

/**
 * One problem per path an inline hook reads that its parent's (or a child type's) CRD schema lacks,
 * per children key no declared type has, and per status field the API server would drop.
 */
export function expressionSchemaChecks(controller: SchemaCheckedController, crds: readonly KubeObject[]): { problems: FieldProblem[]; warnings: FieldProblem[] } {
  const [rule, ...others] = controller.parents;
  const parent = rule === undefined || others.length > 0 ? undefined : crdSchema(rule, crds);
  const problems = (['sync', 'finalize', 'customize'] as const).flatMap((name) =>
    hookProblems(name, controller, parent, crds).map((message) => ({ path: `spec.hooks.${name}.jsonata.expression`, message })));
  return { problems, warnings: [] };
}
