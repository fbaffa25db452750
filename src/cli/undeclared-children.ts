/**
 * A JSONata sync or finalize hook that answers an object of a kind its controller does not declare
 * (`childResources` of a CompositeController, `attachments` of a DecoratorController) would have every
 * sync refused at run time; `loom validate` says so before. Which kind a declared rule names comes from
 * the CRDs among the validated files and the built-in types: a problem then. Without them the kind is
 * guessed from Kubernetes' regular plural, which an irregular one (`mice`) defeats: only a warning.
 */
import { closestMatch, type FieldProblem, type Hook, type KubeObject, type ResourceRule } from '../api/index.ts';
import { declaredTypes, declares, knownKinds } from './declared-types.ts';
import { literalObjects, type LiteralObject } from './literal-objects.ts';
import { regularPlural } from '../offline/render-types.ts';

/** What the check needs of a parsed controller. */
export interface DeclaredObjects {
  /** `childResources` or `attachments`. */
  field: 'childResources' | 'attachments';
  rules: readonly ResourceRule[];
  hooks: { sync?: Hook | undefined; finalize?: Hook | undefined };
}

function describeRule(object: LiteralObject): string {
  const apiVersion = object.apiVersion ?? '…';
  return `{ apiVersion: ${apiVersion}, resource: ${regularPlural(object.kind)} }`;
}

/** What the check found: certain problems, and objects only the regular plural says are undeclared. */
export interface UndeclaredChildren {
  problems: FieldProblem[];
  warnings: FieldProblem[];
}

/**
 * The problem, or the warning when only the regular plural tells, about one undeclared object. Either
 * names the known kind it is near first (`ConfigMpa`: did you mean ConfigMap?), if any, then the rule
 * to add, for a kind of its own that happens to be near a known one (`Rule`, near `Role`).
 */
function report(object: LiteralObject, field: DeclaredObjects['field'], certain: boolean, kinds: readonly string[]): string {
  const where = `line ${object.line}, column ${object.column}: a ${object.kind}${object.apiVersion ? ` (${object.apiVersion})` : ''} is not among spec.${field}`;
  const meant = closestMatch(object.kind, kinds);
  const fix = certain ? `add ${describeRule(object)} to spec.${field}` : `give loom validate the CRDs of spec.${field} to be sure, or add ${describeRule(object)}`;
  const advice = meant === undefined ? fix : `did you mean ${meant}? If not, ${fix}`;
  return certain ? `${where}, so loom would refuse every sync that returns one; ${advice}` : `${where} as far as its regular plural tells; ${advice}`;
}

/** One problem (or warning) per literal object of an undeclared kind in an inline sync or finalize expression. */
export function undeclaredChildren(controller: DeclaredObjects, crds: readonly KubeObject[]): UndeclaredChildren {
  const types = declaredTypes(controller.rules, crds);
  const kinds = knownKinds(types, crds);
  const { field } = controller;
  // The answer's list of desired objects for each declaring field.
  const answered = field === 'childResources' ? 'children' : 'attachments';
  const found: UndeclaredChildren = { problems: [], warnings: [] };
  for (const name of ['sync', 'finalize'] as const) {
    const expression = controller.hooks[name]?.jsonata?.expression ?? '';
    for (const object of literalObjects(expression, answered)) {
      const answers = types.map((type) => declares(type, object));
      if (answers.includes(true)) continue;
      const certain = !answers.includes('guess');
      (certain ? found.problems : found.warnings).push({ path: `spec.hooks.${name}.jsonata.expression`, message: report(object, field, certain, kinds) });
    }
  }
  return found;
}
