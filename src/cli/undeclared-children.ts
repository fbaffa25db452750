/**
 * A JSONata sync or finalize hook that builds an object of a kind its controller does not declare
 * (`childResources` of a CompositeController, `attachments` of a DecoratorController) would have every
 * sync refused at run time; `loom validate` says so before. Which kind a declared rule names comes from
 * the CRDs among the validated files and the built-in types, else from Kubernetes' regular plural.
 */
import { groupOf, type FieldProblem, type Hook, type KubeObject, type ResourceRule } from '../api/index.ts';
import { literalObjects, type LiteralObject } from './literal-objects.ts';
import { regularPlural, typeCatalog } from './render-types.ts';

/** What the check needs of a parsed controller. */
export interface DeclaredObjects {
  /** `childResources` or `attachments`. */
  field: 'childResources' | 'attachments';
  rules: readonly ResourceRule[];
  hooks: { sync?: Hook | undefined; finalize?: Hook | undefined };
}

function declares(rule: ResourceRule, kindOf: (rule: ResourceRule) => string | undefined, object: LiteralObject): boolean {
  if (object.apiVersion !== undefined && groupOf(object.apiVersion) !== groupOf(rule.apiVersion)) return false;
  const kind = kindOf(rule);
  return kind === undefined ? regularPlural(object.kind) === rule.resource : kind === object.kind;
}

function describeRule(object: LiteralObject): string {
  const apiVersion = object.apiVersion ?? '…';
  return `{ apiVersion: ${apiVersion}, resource: ${regularPlural(object.kind)} }`;
}

/** One problem per literal object of an undeclared kind in an inline sync or finalize expression. */
export function undeclaredChildren(controller: DeclaredObjects, crds: readonly KubeObject[]): FieldProblem[] {
  const catalog = typeCatalog({ crds, examples: [] });
  const kindOf = (rule: ResourceRule) => catalog.resolve(rule)?.kind;
  const { field, rules } = controller;
  return (['sync', 'finalize'] as const).flatMap((name) => {
    const expression = controller.hooks[name]?.jsonata?.expression;
    if (expression === undefined) return [];
    return literalObjects(expression)
      .filter((object) => !rules.some((rule) => declares(rule, kindOf, object)))
      .map((object) => ({
        path: `spec.hooks.${name}.jsonata.expression`,
        message: `line ${object.line}, column ${object.column}: a ${object.kind}${object.apiVersion ? ` (${object.apiVersion})` : ''} is not among spec.${field}, so loom would refuse every sync that returns one; add ${describeRule(object)} to spec.${field}`,
      }));
  });
}
