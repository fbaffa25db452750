/**
 * The loom annotations a desired child may carry to set its own order and policies
 * (docs/ordering-and-readiness.md): a wave, the siblings it depends on, a readiness expression, and
 * what deleting or an immutable change does to it. Each wins over its child type's rule
 * (`childResources[]`). The annotations stay on the written child, so a hook that returns them to
 * Metacontroller does no harm there: Metacontroller writes them as it writes any annotation.
 */
import {
  DELETION_POLICIES, IMMUTABLE_CHANGE_POLICIES,
  type ChildPolicies, type DeletionPolicy, type ImmutableChangePolicy,
} from './controller-spec.ts';
import type { KubeObject } from './object.ts';
import { boundedText } from './bounded-text.ts';

/** An integer; lower waves are written, and must be ready, first. */
export const WAVE_ANNOTATION = 'loom.dev/wave';
/** Comma-separated siblings, each `Kind[.group]/[namespace/]name`. */
export const DEPENDS_ON_ANNOTATION = 'loom.dev/depends-on';
/** A JSONata expression over the observed child. */
export const READY_WHEN_ANNOTATION = 'loom.dev/ready-when';
/** `Delete`, `Orphan` or `Retain`. */
export const DELETION_POLICY_ANNOTATION = 'loom.dev/deletion-policy';
/** `Recreate` or `Fail`. */
export const ON_IMMUTABLE_CHANGE_ANNOTATION = 'loom.dev/on-immutable-change';

/** Every annotation above: a child carrying any of them asks for loom's ordering or policies. */
export const CHILD_ANNOTATIONS: readonly string[] = [
  WAVE_ANNOTATION, DEPENDS_ON_ANNOTATION, READY_WHEN_ANNOTATION, DELETION_POLICY_ANNOTATION, ON_IMMUTABLE_CHANGE_ANNOTATION,
];

/** A sibling named by `loom.dev/depends-on`. */
export interface SiblingRef {
  kind: string;
  /** Absent: any group (it must then name one declared kind). `''` is the core group. */
  group?: string;
  /** Absent: the namespace of the child that names it. */
  namespace?: string;
  name: string;
  /** As written, for messages. */
  text: string;
}

/** A child's order and policies, with its type's rule applied under the annotations and defaults filled in. */
export interface ResolvedChildPolicies {
  wave: number;
  dependsOn: SiblingRef[];
  readyWhen: string | undefined;
  deletionPolicy: DeletionPolicy;
  /** `undefined`: the update method decides, as in Metacontroller. */
  onImmutableChange: ImmutableChangePolicy | undefined;
}

/** The policies of one child, or what is wrong with its annotations. */
export type ChildPoliciesResult = { ok: true; value: ResolvedChildPolicies } | { ok: false; problems: string[] };

/** The most siblings one child may depend on: a guard against an answer built to make ordering slow. */
export const MAX_DEPENDS_ON = 100;
const WAVE = /^-?\d{1,9}$/;
const KIND = /^[A-Za-z][A-Za-z0-9]*$/;
const GROUP = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** The most characters of an annotation's value a problem quotes: a value may be 256 KiB, and problems go into events and the parent's Ready message. */
const QUOTED_CHARS = 80;

/** `value` as a problem quotes it: in JSON quotes, its head only when long. */
function quoted(value: string): string {
  return JSON.stringify(boundedText(value, QUOTED_CHARS));
}

/** The part of a reference that fails its syntax, as a message, or `undefined`. */
function badPart(text: string, parts: Array<[string | undefined, RegExp, string]>): string | undefined {
  for (const [value, syntax, what] of parts) {
    if (value !== undefined && !syntax.test(value)) return `${quoted(text)}: ${quoted(value)} is not ${what}`;
  }
  return undefined;
}

/** One `Kind[.group]/[namespace/]name`, or why it is not one. */
export function parseSiblingRef(text: string): SiblingRef | string {
  const parts = text.split('/');
  if (parts.length < 2 || parts.length > 3) return `${quoted(text)} is not Kind[.group]/[namespace/]name`;
  const [type = '', ...rest] = parts;
  const dot = type.indexOf('.');
  const kind = dot < 0 ? type : type.slice(0, dot);
  const group = dot < 0 ? undefined : type.slice(dot + 1);
  const name = rest.at(-1) ?? '';
  const namespace = rest.length === 2 ? rest[0] : undefined;
  const bad = badPart(text, [[kind, KIND, 'a kind'], [group, GROUP, 'an API group'], [namespace, NAME, 'a namespace'], [name, NAME, 'an object name']]);
  if (bad !== undefined) return bad;
  return omitAbsent({ kind, group, namespace, name, text });
}

function omitAbsent(ref: { kind: string; group: string | undefined; namespace: string | undefined; name: string; text: string }): SiblingRef {
  const { group, namespace, ...rest } = ref;
  return { ...rest, ...(group !== undefined && { group }), ...(namespace !== undefined && { namespace }) };
}

function readWave(value: string | undefined, problems: string[]): number | undefined {
  if (value === undefined) return undefined;
  if (WAVE.test(value.trim())) return Number(value.trim());
  problems.push(`${WAVE_ANNOTATION}: expected an integer, got ${quoted(value)}`);
  return undefined;
}

function readDependsOn(value: string | undefined, problems: string[]): SiblingRef[] {
  if (value === undefined) return [];
  const texts = value.split(',').map((t) => t.trim()).filter((t) => t !== '');
  if (texts.length > MAX_DEPENDS_ON) {
    problems.push(`${DEPENDS_ON_ANNOTATION}: names ${texts.length} siblings; at most ${MAX_DEPENDS_ON}`);
    return [];
  }
  const refs: SiblingRef[] = [];
  for (const text of texts) {
    const ref = parseSiblingRef(text);
    if (typeof ref === 'string') problems.push(`${DEPENDS_ON_ANNOTATION}: ${ref}`);
    else refs.push(ref);
  }
  return refs;
}

function readChoice<T extends string>(annotation: string, value: string | undefined, choices: readonly T[], problems: string[]): T | undefined {
  if (value === undefined) return undefined;
  if ((choices as readonly string[]).includes(value)) return value as T;
  problems.push(`${annotation}: expected one of ${choices.join(', ')}, got ${quoted(value)}`);
  return undefined;
}

/** The annotations' own values; each that does not parse is left out and its problem pushed. */
function ownPoliciesOf(child: KubeObject, problems: string[]): OwnPolicies {
  const annotations = child.metadata.annotations ?? {};
  const wave = readWave(annotations[WAVE_ANNOTATION], problems);
  const dependsOn = readDependsOn(annotations[DEPENDS_ON_ANNOTATION], problems);
  let readyWhen = annotations[READY_WHEN_ANNOTATION];
  if (readyWhen?.trim() === '') {
    problems.push(`${READY_WHEN_ANNOTATION}: empty expression`);
    readyWhen = undefined;
  }
  const deletionPolicy = readChoice(DELETION_POLICY_ANNOTATION, annotations[DELETION_POLICY_ANNOTATION], DELETION_POLICIES, problems);
  const onImmutableChange = readChoice(ON_IMMUTABLE_CHANGE_ANNOTATION, annotations[ON_IMMUTABLE_CHANGE_ANNOTATION], IMMUTABLE_CHANGE_POLICIES, problems);
  return { wave, dependsOn, readyWhen, deletionPolicy, onImmutableChange };
}

/**
 * The order and policies of desired child `child`: its annotations, else `rule` (its type's
 * `childResources[]` entry), else the defaults (wave 0, no dependencies, kstatus, `Delete`).
 */
export function childPoliciesOf(child: KubeObject, rule: ChildPolicies = {}): ChildPoliciesResult {
  const problems: string[] = [];
  const own = ownPoliciesOf(child, problems);
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: withRule(own, rule) };
}

/**
 * The policies of a child that exists, read leniently: its annotations passed validation when it was
 * desired, but may have been edited since. Each annotation counts on its own: one that does not parse
 * leaves its own policy to `rule` and is reported in `problems`, except a deletion policy, which then
 * resolves to `Retain`: a child whose wish cannot be read is kept, never deleted.
 */
export function observedChildPoliciesOf(child: KubeObject, rule: ChildPolicies = {}): { value: ResolvedChildPolicies; problems: string[] } {
  const problems: string[] = [];
  const own = ownPoliciesOf(child, problems);
  const unreadable = child.metadata.annotations?.[DELETION_POLICY_ANNOTATION] !== undefined && own.deletionPolicy === undefined;
  return { value: withRule({ ...own, ...(unreadable && { deletionPolicy: 'Retain' as const }) }, rule), problems };
}

/** The annotations' values over the rule's, over the defaults. */
type OwnPolicies = { [K in keyof ResolvedChildPolicies]: ResolvedChildPolicies[K] | undefined } & { dependsOn: SiblingRef[] };

function withRule(own: OwnPolicies, rule: ChildPolicies): ResolvedChildPolicies {
  return {
    wave: own.wave ?? rule.wave ?? 0,
    dependsOn: own.dependsOn,
    readyWhen: own.readyWhen ?? rule.readyWhen,
    deletionPolicy: own.deletionPolicy ?? rule.deletionPolicy ?? 'Delete',
    onImmutableChange: own.onImmutableChange ?? rule.onImmutableChange,
  };
}

/** Whether `child` carries any of loom's child annotations. */
export function hasChildAnnotations(child: KubeObject): boolean {
  const annotations = child.metadata.annotations;
  return annotations !== undefined && CHILD_ANNOTATIONS.some((a) => a in annotations);
}
