/**
 * loom's per-type child policies on a `childResources[]` entry (docs/ordering-and-readiness.md): wave,
 * readyWhen, deletionPolicy, onImmutableChange and adopt. Each is absent from the parsed rule unless
 * the manifest sets it, so a Metacontroller manifest parses to exactly what it did before.
 */
import { ADOPT_POLICIES, DELETION_POLICIES, IMMUTABLE_CHANGE_POLICIES, type ChildPolicies } from './controller-spec.ts';
import { omitUndefined, type FieldReader } from './field-reader.ts';

/** The fields {@link readChildPolicies} reads, in the order it reports them. */
export const CHILD_POLICY_FIELDS: readonly (keyof ChildPolicies)[] = ['wave', 'readyWhen', 'deletionPolicy', 'onImmutableChange', 'adopt'];

/**
 * The widest wave: what the `loom.dev/wave` annotation can name (nine digits), so a type's wave and a
 * child's can always be compared, and the CRD's bounds say the same.
 */
export const MAX_WAVE = 999_999_999;

/** Where a field goes that users may put on a child type by mistake. */
export const CHILD_RULE_HINTS: Readonly<Record<string, string>> = {
  dependsOn: 'dependsOn names sibling objects, so each desired child sets it with the loom.dev/depends-on annotation',
};

/** A JSONata expression: a string with more than white space in it. */
function readExpression(r: FieldReader): string | undefined {
  const text = r.string({ nonEmpty: true });
  if (text === undefined || text.trim() !== '') return text;
  return r.problem('expected a JSONata expression; got only white space');
}

/** The policies a `childResources[]` entry sets; every problem is reported at its field. */
export function readChildPolicies(r: FieldReader): ChildPolicies {
  return omitUndefined({
    wave: r.field('wave').integer({ min: -MAX_WAVE, max: MAX_WAVE }),
    readyWhen: readExpression(r.field('readyWhen')),
    deletionPolicy: r.field('deletionPolicy').oneOfSuggesting(DELETION_POLICIES),
    onImmutableChange: r.field('onImmutableChange').oneOfSuggesting(IMMUTABLE_CHANGE_POLICIES),
    adopt: r.field('adopt').oneOfSuggesting(ADOPT_POLICIES),
  });
}

/** What a DecoratorController says about a child policy field on one of its `attachments[]`. */
export const ATTACHMENT_HINTS: Readonly<Record<string, string>> = Object.fromEntries(
  CHILD_POLICY_FIELDS.map((field) => [field, `${field} is a field of a CompositeController's childResources[], not of attachments`]),
);
