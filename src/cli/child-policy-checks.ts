/**
 * `loom validate`'s checks of loom's ordering and readiness (docs/ordering-and-readiness.md) on a
 * CompositeController: every child type's `readyWhen` compiles, and each child its inline sync or
 * finalize expression builds literally carries loom.dev/* annotations that parse, a ready-when that
 * compiles, and depends on siblings of declared child kinds. Between the literal children it can
 * name, it finds what loom would fail a sync for: a dependency on a sibling of a later wave, and a
 * dependency cycle (see `sibling-order.ts`). Computed names and annotation values are not checked:
 * only a running hook tells them.
 */
import {
  CHILD_ANNOTATIONS, DEPENDS_ON_ANNOTATION, READY_WHEN_ANNOTATION, WAVE_ANNOTATION, childPoliciesOf, closestMatch,
  type ChildResourceRule, type FieldProblem, type Hook, type KubeObject, type SiblingRef,
} from '../api/index.ts';
import { declaredTypes, declares, groupName, isOfKind, type DeclaredType } from './declared-types.ts';
import { jsonataSyntaxError } from './jsonata-syntax.ts';
import { literalObjects, type LiteralObject } from './literal-objects.ts';
import { siblingOrderProblems, type OrderedChild } from './sibling-order.ts';

/** What the checks need of a parsed CompositeController. */
export interface PolicyInputs {
  rules: readonly ChildResourceRule[];
  hooks: { sync?: Hook | undefined; finalize?: Hook | undefined };
}

/** What the checks found: certain problems, and what only a guessed kind says is wrong. */
export interface PolicyFindings {
  problems: FieldProblem[];
  warnings: FieldProblem[];
}

type Types = DeclaredType<ChildResourceRule>[];
/** One finding about a literal child, before it is placed. */
type Finding = { warn?: true; message: string };

/** `StatefulSet "db"`, or `a StatefulSet` when its name is computed. */
function describeChild(object: LiteralObject): string {
  return object.name === undefined ? `a ${object.kind}` : `${object.kind} ${JSON.stringify(object.name)}`;
}

/** Every child type's `readyWhen` that does not compile, at the rule. */
function readyWhenProblems(rules: readonly ChildResourceRule[]): FieldProblem[] {
  return rules.flatMap((rule, i) => {
    const message = rule.readyWhen === undefined ? undefined : jsonataSyntaxError(rule.readyWhen);
    return message === undefined ? [] : [{ path: `spec.childResources[${i}].readyWhen`, message }];
  });
}

/** What is wrong with sibling `ref` against the declared types, if anything. */
function refFinding(ref: SiblingRef, types: Types): Finding | undefined {
  const answers = types.map((type) => [type, isOfKind(type, ref.kind)] as const);
  const ofKind = answers.filter(([, is]) => is === true).map(([type]) => type);
  const inGroup = ref.group === undefined ? ofKind : ofKind.filter((type) => type.group === ref.group);
  const head = `${DEPENDS_ON_ANNOTATION}: ${ref.text}: `;
  if (inGroup.length === 1) return undefined;
  if (inGroup.length > 1) {
    const groups = inGroup.map((type) => groupName(type.group)).join(', ');
    return { message: `${head}${inGroup.length} child types have kind ${ref.kind} (in ${groups}); name the group, as ${ref.kind}.${inGroup[0]?.group ?? ''}/${ref.name}` };
  }
  if (ofKind.length > 0) {
    const groups = ofKind.map((type) => groupName(type.group)).join(', ');
    return { message: `${head}no child type of kind ${ref.kind} in group ${ref.group ?? ''} is among spec.childResources (${ref.kind} is declared in ${groups})` };
  }
  if (answers.some(([, is]) => is === 'guess')) {
    return { warn: true, message: `${head}no child type of kind ${ref.kind} is among spec.childResources as far as the regular plurals of their resources tell; give loom validate their CRDs to be sure` };
  }
  const meant = closestMatch(ref.kind, types.flatMap((type) => (type.kind === undefined ? [] : [type.kind])));
  return { message: `${head}no child type of kind ${ref.kind} is among spec.childResources${meant === undefined ? '' : ` (did you mean ${meant}?)`}` };
}

/** A loom.dev annotation near a child annotation's name, but not one: probably a typo. */
function misspeltAnnotations(annotations: Record<string, string>): Finding[] {
  const prefix = 'loom.dev/';
  const known = CHILD_ANNOTATIONS.map((a) => a.slice(prefix.length));
  return Object.keys(annotations).flatMap((key) => {
    const meant = key.startsWith(prefix) ? closestMatch(key.slice(prefix.length), known) : undefined;
    return meant === undefined ? [] : [{ warn: true as const, message: `${key}: not an annotation loom reads; ignored (did you mean ${prefix}${meant}?)` }];
  });
}

/** The type `object` is of, when exactly one declared type is. */
function ruleOf(object: LiteralObject, types: Types): ChildResourceRule | undefined {
  const matching = types.filter((type) => declares(type, object) === true);
  return matching.length === 1 ? matching[0]?.rule : undefined;
}

/** The findings about one literal child, and what the order checks need of it (when its annotations parse). */
function checkChild(object: LiteralObject, types: Types): { findings: Finding[]; ordered?: OrderedChild } {
  const annotations = object.annotations ?? {};
  const rule = ruleOf(object, types);
  const policies = childPoliciesOf({ apiVersion: object.apiVersion ?? '', kind: object.kind, metadata: { annotations } }, rule);
  const findings = misspeltAnnotations(annotations);
  if (!policies.ok) return { findings: [...findings, ...policies.problems.map((message) => ({ message }))] };
  const readyWhen = annotations[READY_WHEN_ANNOTATION];
  const syntax = readyWhen === undefined ? undefined : jsonataSyntaxError(readyWhen);
  if (syntax !== undefined) findings.push({ message: `${READY_WHEN_ANNOTATION}: ${syntax}` });
  findings.push(...policies.value.dependsOn.flatMap((ref) => refFinding(ref, types) ?? []));
  // A wave annotation computed by the expression may say otherwise than the type's wave.
  const wave = object.computedAnnotations && !(WAVE_ANNOTATION in annotations) ? undefined : policies.value.wave;
  return { findings, ordered: { object, wave, dependsOn: policies.value.dependsOn } };
}

/** Places findings about `object` at the expression that builds it. */
function place(found: PolicyFindings, path: string, object: LiteralObject, findings: readonly Finding[]): void {
  for (const finding of findings) {
    const problem = { path, message: `line ${object.line}, column ${object.column}: ${describeChild(object)}: ${finding.message}` };
    (finding.warn ? found.warnings : found.problems).push(problem);
  }
}

/** Every check of this module on one CompositeController (see the module comment). */
export function childPolicyChecks(controller: PolicyInputs, crds: readonly KubeObject[]): PolicyFindings {
  const types = declaredTypes(controller.rules, crds);
  const found: PolicyFindings = { problems: readyWhenProblems(controller.rules), warnings: [] };
  for (const name of ['sync', 'finalize'] as const) {
    const path = `spec.hooks.${name}.jsonata.expression`;
    const ordered: OrderedChild[] = [];
    for (const object of literalObjects(controller.hooks[name]?.jsonata?.expression ?? '', 'children')) {
      const { findings, ordered: child } = checkChild(object, types);
      place(found, path, object, findings);
      if (child) ordered.push(child);
    }
    for (const { child, message } of siblingOrderProblems(ordered)) place(found, path, child.object, [{ message }]);
  }
  return found;
}
