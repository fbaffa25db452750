/**
 * Reads label selectors and Metacontroller's annotation selectors from untrusted JSON, rejecting
 * what `metav1.LabelSelectorAsSelector` would reject (unknown operator, `In` without values, a key or
 * value no label can have) and a selector no object can satisfy. Annotation selectors get their keys
 * checked only: annotation values are free text.
 */
import type { AnnotationSelector } from './controller-spec.ts';
import { omitUndefined, type FieldReader } from './field-reader.ts';
import type { LabelSelector, SelectorRequirement } from './label-selector.ts';
import { checkKey, checkLabelValue } from './name-syntax.ts';
import { selectorsDisjoint } from './selector-overlap.ts';

/** What a selector matches against: labels (keys and values checked) or annotations (keys only). */
type Target = 'label' | 'annotation';

const OPERATORS: readonly SelectorRequirement['operator'][] = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

/** Each of `values`, read from the array at `r`, is a label value. */
function checkLabelValues(r: FieldReader, values: readonly string[]): void {
  // Only an array yields values, and reading the items of an array reports nothing new.
  if (values.length > 0) r.items()?.forEach((item, i) => checkLabelValue(item, values[i]!));
}

/** `values` of a requirement: there for In and NotIn only, and label values when matching labels. */
function readValues(r: FieldReader, operator: SelectorRequirement['operator'], target: Target): string[] | undefined {
  const values = r.stringList();
  if (target === 'label') checkLabelValues(r, values ?? []);
  const count = values?.length ?? 0;
  const needsValues = operator === 'In' || operator === 'NotIn';
  if (needsValues && count === 0) r.problem(`operator ${operator} needs at least one value`);
  if (!needsValues && count > 0) r.problem(`operator ${operator} takes no values`);
  return values;
}

function readRequirement(r: FieldReader, target: Target): SelectorRequirement {
  r.object();
  r.warnUnknownFields(['key', 'operator', 'values']);
  const key = r.field('key').string({ required: true, nonEmpty: true }) ?? '';
  if (key !== '') checkKey(r.field('key'), key, target);
  const operator = r.field('operator').oneOf(OPERATORS, true) ?? 'Exists';
  return omitUndefined({ key, operator, values: readValues(r.field('values'), operator, target) });
}

/** `matchExpressions` of a label or annotation selector. */
function readRequirements(r: FieldReader, target: Target): SelectorRequirement[] | undefined {
  return r.items()?.map((item) => readRequirement(item, target));
}

/** `matchLabels` / `matchAnnotations`: a string map whose keys (and, for labels, values) are checked. */
function readMatchMap(r: FieldReader, target: Target): Record<string, string> | undefined {
  const map = r.stringMap();
  for (const [key, value] of Object.entries(map ?? {})) {
    checkKey(r.field(key), key, target);
    if (target === 'label') checkLabelValue(r.field(key), value);
  }
  return map;
}

/**
 * A selector that no object can satisfy (`tier=web` and `tier NotIn (web)`) is a mistake, not a way to
 * switch a controller off: it would run and never do anything. A selector disjoint from itself is one.
 */
function refuseContradiction(r: FieldReader, selector: LabelSelector, problemsBefore: number): void {
  // A requirement reported already (In without values) would count as a contradiction too: say it once.
  if (r.report.problems.length === problemsBefore && selectorsDisjoint(selector, selector)) r.problem('matches no object: its requirements on one key contradict each other');
}

/** A `metav1.LabelSelector`, or `undefined` when absent. */
export function readLabelSelector(r: FieldReader): LabelSelector | undefined {
  if (r.object() === undefined) return undefined;
  r.warnUnknownFields(['matchLabels', 'matchExpressions']);
  const problemsBefore = r.report.problems.length;
  const selector = omitUndefined({
    matchLabels: readMatchMap(r.field('matchLabels'), 'label'),
    matchExpressions: readRequirements(r.field('matchExpressions'), 'label'),
  });
  refuseContradiction(r, selector, problemsBefore);
  return selector;
}

/** A DecoratorController `annotationSelector`, or `undefined` when absent. */
export function readAnnotationSelector(r: FieldReader): AnnotationSelector | undefined {
  if (r.object() === undefined) return undefined;
  r.warnUnknownFields(['matchAnnotations', 'matchExpressions']);
  const problemsBefore = r.report.problems.length;
  const selector = omitUndefined({
    matchAnnotations: readMatchMap(r.field('matchAnnotations'), 'annotation'),
    matchExpressions: readRequirements(r.field('matchExpressions'), 'annotation'),
  });
  refuseContradiction(r, omitUndefined({ matchLabels: selector.matchAnnotations, matchExpressions: selector.matchExpressions }), problemsBefore);
  return selector;
}
