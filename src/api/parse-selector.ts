/**
 * Reads label selectors and Metacontroller's annotation selectors from untrusted JSON, rejecting
 * what `metav1.LabelSelectorAsSelector` would reject (unknown operator, `In` without values).
 */
import type { AnnotationSelector } from './controller-spec.ts';
import { omitUndefined, type FieldReader } from './field-reader.ts';
import type { LabelSelector, SelectorRequirement } from './label-selector.ts';

const OPERATORS: readonly SelectorRequirement['operator'][] = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

function readRequirement(r: FieldReader): SelectorRequirement {
  r.object();
  r.warnUnknownFields(['key', 'operator', 'values']);
  const key = r.field('key').string({ required: true, nonEmpty: true }) ?? '';
  const operator = r.field('operator').oneOf(OPERATORS, true) ?? 'Exists';
  const values = r.field('values').stringList();
  const needsValues = operator === 'In' || operator === 'NotIn';
  if (needsValues && !values?.length) r.field('values').problem(`operator ${operator} needs at least one value`);
  if (!needsValues && values?.length) r.field('values').problem(`operator ${operator} takes no values`);
  return omitUndefined({ key, operator, values });
}

/** `matchExpressions` of a label or annotation selector. */
function readRequirements(r: FieldReader): SelectorRequirement[] | undefined {
  return r.items()?.map(readRequirement);
}

/** A `metav1.LabelSelector`, or `undefined` when absent. */
export function readLabelSelector(r: FieldReader): LabelSelector | undefined {
  if (r.object() === undefined) return undefined;
  r.warnUnknownFields(['matchLabels', 'matchExpressions']);
  return omitUndefined({
    matchLabels: r.field('matchLabels').stringMap(),
    matchExpressions: readRequirements(r.field('matchExpressions')),
  });
}

/** A DecoratorController `annotationSelector`, or `undefined` when absent. */
export function readAnnotationSelector(r: FieldReader): AnnotationSelector | undefined {
  if (r.object() === undefined) return undefined;
  r.warnUnknownFields(['matchAnnotations', 'matchExpressions']);
  return omitUndefined({
    matchAnnotations: r.field('matchAnnotations').stringMap(),
    matchExpressions: readRequirements(r.field('matchExpressions')),
  });
}
