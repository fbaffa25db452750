/**
 * The order of a parent's children (docs/ordering-and-readiness.md, "Order: waves and dependsOn"): each
 * desired child's wave and the siblings it depends on, resolved against the desired set and checked
 * before anything is written. A cycle, a sibling that is not desired, a dependency on a higher wave or
 * an annotation that does not parse is refused with a message naming the children. Pure.
 */
import { childPoliciesOf, WAVE_ANNOTATION, type SiblingRef } from '../api/child-annotations.ts';
import type { ChildPolicies } from '../api/controller-spec.ts';
import { groupOf, type KubeObject } from '../api/object.ts';
import { childRefOf, type ChildRef } from './child-plan.ts';

/** One desired child in the order. */
export interface OrderedChild {
  key: string;
  ref: ChildRef;
  wave: number;
  /** The keys of the siblings it depends on. */
  dependsOn: string[];
}

/** The order of one answer's children. */
export interface ChildOrder {
  /** Whether any child names a wave or siblings; without, every child is written at once, as in Metacontroller. */
  ordered: boolean;
  /** Every desired child by key, in desired order. */
  children: ReadonlyMap<string, OrderedChild>;
}

/** The order, or why there is none. */
export type ChildOrderResult = { ok: true; order: ChildOrder } | { ok: false; problems: string[] };

/** A declared child type: refs that leave out the group resolve against these. */
export interface DeclaredKind {
  apiVersion: string;
  kind: string;
}

/** What ordering needs. */
export interface ChildOrderInput {
  desired: readonly KubeObject[];
  declared: readonly DeclaredKind[];
  /** The `childResources[]` entry of a child's type, if it has one. */
  ruleOf: (child: KubeObject) => ChildPolicies | undefined;
}

/** A child's identity across versions: group, kind, namespace, name. */
export function orderKeyOf(ref: ChildRef): string {
  return JSON.stringify([groupOf(ref.apiVersion), ref.kind, ref.namespace, ref.name]);
}

/** `Kind namespace/name`, as messages name a child. */
export function describeRef(ref: ChildRef): string {
  return `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
}

/** The group a ref means: its own, else the one declared type of its kind; a string is a problem. */
function groupFor(ref: SiblingRef, declared: readonly DeclaredKind[]): string | { problem: string } {
  if (ref.group !== undefined) return ref.group;
  const groups = [...new Set(declared.filter((d) => d.kind === ref.kind).map((d) => groupOf(d.apiVersion)))];
  if (groups.length === 1) return groups[0] ?? '';
  if (groups.length === 0) return { problem: `no declared child type has kind ${ref.kind}` };
  return { problem: `kind ${ref.kind} is ambiguous (groups ${groups.map((g) => g || 'core').join(', ')}): write ${ref.kind}.<group>` };
}

/**
 * The key of the sibling `ref` names from `child`, or a problem. A ref without a namespace means the
 * child's own, or a cluster-scoped sibling (a Namespace, a CRD) when there is one of that name.
 */
function resolve(ref: SiblingRef, child: ChildRef, input: { declared: readonly DeclaredKind[]; keys: ReadonlySet<string> }): string | { problem: string } {
  const group = groupFor(ref, input.declared);
  if (typeof group !== 'string') return group;
  const keyIn = (namespace: string) => JSON.stringify([group, ref.kind, namespace, ref.name]);
  const candidates = ref.namespace === undefined ? [keyIn(child.namespace), keyIn('')] : [keyIn(ref.namespace)];
  return candidates.find((key) => input.keys.has(key)) ?? { problem: 'it is not among the desired children' };
}

/** Whether a child asks for order at all: a wave set anywhere, or siblings named. */
function asksForOrder(child: KubeObject, rule: ChildPolicies | undefined, dependsOn: readonly SiblingRef[]): boolean {
  return dependsOn.length > 0 || rule?.wave !== undefined || WAVE_ANNOTATION in (child.metadata.annotations ?? {});
}

/** The children with their resolved waves and dependencies, and the problems met on the way. */
function resolveAll(input: ChildOrderInput, problems: string[]): { children: Map<string, OrderedChild>; ordered: boolean } {
  const parsed = input.desired.map((obj) => ({ obj, ref: childRefOf(obj), policies: childPoliciesOf(obj, input.ruleOf(obj)) }));
  const keys = new Set(parsed.map(({ ref }) => orderKeyOf(ref)));
  const children = new Map<string, OrderedChild>();
  let ordered = false;
  for (const { obj, ref, policies } of parsed) {
    const key = orderKeyOf(ref);
    if (!policies.ok) problems.push(...policies.problems.map((p) => `${describeRef(ref)}: ${p}`));
    // A child whose annotations do not parse stays in, in wave 0: an order is still wanted for deletions.
    const { wave, dependsOn: refs } = policies.ok ? policies.value : { wave: 0, dependsOn: [] };
    ordered ||= asksForOrder(obj, input.ruleOf(obj), refs);
    const dependsOn: string[] = [];
    for (const sibling of refs) {
      const found = resolve(sibling, ref, { declared: input.declared, keys });
      if (typeof found === 'string') dependsOn.push(found);
      else problems.push(`${describeRef(ref)} depends on ${JSON.stringify(sibling.text)}: ${found.problem}`);
    }
    children.set(key, { key, ref, wave, dependsOn });
  }
  return { children, ordered };
}

/** A dependency on a sibling of a higher wave could never be met. */
function higherWaves(children: ReadonlyMap<string, OrderedChild>, problems: string[]): void {
  for (const child of children.values()) {
    for (const key of child.dependsOn) {
      const sibling = children.get(key);
      if (sibling && sibling.wave > child.wave) {
        problems.push(`${describeRef(child.ref)} (wave ${child.wave}) depends on ${describeRef(sibling.ref)} of a higher wave (${sibling.wave})`);
      }
    }
  }
}

/** The first dependsOn cycle among `children`, as the keys around it (first key repeated at the end), or `undefined`. */
export function findCycle(children: ReadonlyMap<string, { dependsOn: readonly string[] }>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (key: string): string[] | undefined => {
    if (state.get(key) === 'done') return undefined;
    if (state.get(key) === 'open') return [...path.slice(path.indexOf(key)), key];
    state.set(key, 'open');
    path.push(key);
    for (const next of children.get(key)?.dependsOn ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(key, 'done');
    return undefined;
  };
  for (const key of children.keys()) {
    const cycle = visit(key);
    if (cycle) return cycle;
  }
  return undefined;
}

/**
 * The order of `input.desired`, or every problem found: bad annotations, siblings that are not desired,
 * dependencies on higher waves, and the first cycle.
 */
export function childOrderOf(input: ChildOrderInput): ChildOrderResult {
  const problems: string[] = [];
  const { children, ordered } = resolveAll(input, problems);
  higherWaves(children, problems);
  const cycle = findCycle(children);
  if (cycle) problems.push(`dependsOn cycle: ${cycle.map((key) => describeRef(children.get(key)!.ref)).join(' → ')}`);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, order: { ordered, children } };
}

/**
 * The order in which unwanted observed children go (their observed annotations): never refused, as
 * deleting must go on. What does not parse counts as wave 0, a sibling that is not going is ignored,
 * and a cycle (a child edited by hand) leaves the waves alone to order them.
 */
export function removalOrderOf(input: ChildOrderInput): ChildOrder {
  const { children, ordered } = resolveAll(input, []);
  if (findCycle(children)) for (const child of children.values()) child.dependsOn = [];
  return { ordered, children };
}
