/**
 * The order of a parent's children (docs/ordering-and-readiness.md, "Order: waves and dependsOn"): each
 * desired child's wave and the siblings it depends on, resolved against the desired set and checked
 * before anything is written. A cycle, a sibling that is not desired, a dependency on a higher wave or
 * an annotation that does not parse is refused with a message naming the children. Pure.
 */
import { childPoliciesOf, DEPENDS_ON_ANNOTATION, WAVE_ANNOTATION, type SiblingRef } from '../api/child-annotations.ts';
import type { ChildPolicies } from '../api/controller-spec.ts';
import { groupOf, type KubeObject } from '../api/object.ts';
import { boundedText } from '../api/bounded-text.ts';
import { childRefOf, type ChildDecision, type ChildRef } from './child-plan.ts';
import { dependencyCycles, describeCycle } from './dependency-cycles.ts';

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
  /** The same children by wave, lowest wave first, each wave in desired order. */
  waves: readonly (readonly OrderedChild[])[];
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

/** The groups each declared kind is declared in: looked up once per sibling named, not searched. */
function groupsByKind(declared: readonly DeclaredKind[]): ReadonlyMap<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const { apiVersion, kind } of declared) {
    const group = groupOf(apiVersion);
    const known = groups.get(kind);
    if (!known) groups.set(kind, [group]);
    else if (!known.includes(group)) known.push(group);
  }
  return groups;
}

/** The group a ref means: its own, else the one declared type of its kind; a string is a problem. */
function groupFor(ref: SiblingRef, groups: ReadonlyMap<string, string[]>): string | { problem: string } {
  if (ref.group !== undefined) return ref.group;
  const declared = groups.get(ref.kind) ?? [];
  if (declared.length === 1) return declared[0] ?? '';
  if (declared.length === 0) return { problem: `no declared child type has kind ${ref.kind}` };
  return { problem: `kind ${ref.kind} is ambiguous (groups ${declared.map((g) => g || 'core').join(', ')}): write ${ref.kind}.<group>` };
}

/** What resolving siblings looks in: the declared groups by kind, and the desired children's keys. */
interface Lookup {
  groups: ReadonlyMap<string, string[]>;
  keys: ReadonlySet<string>;
}

/**
 * The key of the sibling `ref` names from `child`, or a problem. A ref without a namespace means the
 * child's own, or a cluster-scoped sibling (a Namespace, a CRD) when there is one of that name.
 */
function resolve(ref: SiblingRef, child: ChildRef, lookup: Lookup): string | { problem: string } {
  const group = groupFor(ref, lookup.groups);
  if (typeof group !== 'string') return group;
  const keyIn = (namespace: string) => JSON.stringify([group, ref.kind, namespace, ref.name]);
  const candidates = ref.namespace === undefined ? [keyIn(child.namespace), keyIn('')] : [keyIn(ref.namespace)];
  return candidates.find((key) => lookup.keys.has(key)) ?? { problem: 'it is not among the desired children' };
}

/** Whether a child asks for order at all: a wave set anywhere, or siblings named. */
function asksForOrder(child: KubeObject, rule: ChildPolicies | undefined, dependsOn: readonly SiblingRef[]): boolean {
  return dependsOn.length > 0 || rule?.wave !== undefined || WAVE_ANNOTATION in (child.metadata.annotations ?? {});
}

/**
 * The most dependsOn edges (sibling names, summed over the children) one answer may have, and the most
 * distinct waves: ordering and each round of writes are linear in the children and edges, and a sync
 * takes a round per wave, so these keep one sync's work on the event loop bounded.
 */
export const MAX_ORDER_EDGES = 100_000;
export const MAX_WAVES = 100;

/** How many siblings the children name in all, counted without parsing a name: this bound comes before the work it bounds. */
function edgeCount(desired: readonly KubeObject[]): number {
  let edges = 0;
  for (const obj of desired) {
    const value = obj.metadata.annotations?.[DEPENDS_ON_ANNOTATION];
    edges += value === undefined ? 0 : value.split(',').filter((text) => text.trim() !== '').length;
  }
  return edges;
}

/** `obj` with its depends-on annotation left out: over the bound, siblings are not parsed at all. */
function withoutDependsOn(obj: KubeObject): KubeObject {
  const { [DEPENDS_ON_ANNOTATION]: _ignored, ...annotations } = obj.metadata.annotations ?? {};
  return { ...obj, metadata: { ...obj.metadata, annotations } };
}

/**
 * The children with their resolved waves and dependencies, and the problems met on the way. Over the
 * bound of edges no sibling is resolved: the answer is refused (or, for removals, ordered by waves alone).
 */
function resolveAll(input: ChildOrderInput, problems: string[]): { children: Map<string, OrderedChild>; ordered: boolean; overEdges: boolean } {
  const overEdges = edgeCount(input.desired) > MAX_ORDER_EDGES;
  const parsed = input.desired.map((obj) => ({ obj, ref: childRefOf(obj), policies: childPoliciesOf(overEdges ? withoutDependsOn(obj) : obj, input.ruleOf(obj)) }));
  const lookup: Lookup = { groups: groupsByKind(input.declared), keys: new Set(parsed.map(({ ref }) => orderKeyOf(ref))) };
  const children = new Map<string, OrderedChild>();
  let ordered = overEdges;
  for (const { obj, ref, policies } of parsed) {
    if (!policies.ok) problems.push(...policies.problems.map((p) => `${describeRef(ref)}: ${p}`));
    // A child whose annotations do not parse stays in, in wave 0: an order is still wanted for deletions.
    const { wave, dependsOn: refs } = policies.ok ? policies.value : { wave: 0, dependsOn: [] };
    ordered ||= asksForOrder(obj, input.ruleOf(obj), refs);
    children.set(orderKeyOf(ref), { key: orderKeyOf(ref), ref, wave, dependsOn: resolveRefs(refs, ref, lookup, problems) });
  }
  return { children, ordered, overEdges };
}

/** The keys of the siblings `refs` name from `ref`; what does not resolve is a problem. */
function resolveRefs(refs: readonly SiblingRef[], ref: ChildRef, lookup: Lookup, problems: string[]): string[] {
  const dependsOn: string[] = [];
  for (const sibling of refs) {
    const found = resolve(sibling, ref, lookup);
    if (typeof found === 'string') dependsOn.push(found);
    else problems.push(`${describeRef(ref)} depends on ${JSON.stringify(boundedText(sibling.text, QUOTED_REF_CHARS))}: ${found.problem}`);
  }
  return dependsOn;
}

/** The most characters of a sibling's name a problem quotes. */
const QUOTED_REF_CHARS = 160;

/** The children by wave, lowest first: each round of writes walks them so, and sorting is done once. */
function byWave(children: ReadonlyMap<string, OrderedChild>): OrderedChild[][] {
  const waves = new Map<number, OrderedChild[]>();
  for (const child of children.values()) {
    const wave = waves.get(child.wave);
    if (wave) wave.push(child);
    else waves.set(child.wave, [child]);
  }
  return [...waves.entries()].sort(([a], [b]) => a - b).map(([, members]) => members);
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
  const keys = [...children.keys()];
  const index = new Map(keys.map((key, i) => [key, i]));
  const graph = keys.map((key) => (children.get(key)?.dependsOn ?? []).flatMap((dep) => index.get(dep) ?? []));
  const [cycle] = dependencyCycles(graph, 1);
  return cycle ? [...cycle.map((i) => keys[i]!), keys[cycle[0]!]!] : undefined;
}

/** The problems of an answer too large to order (see `MAX_ORDER_EDGES`). */
function bounds(waves: readonly unknown[], overEdges: boolean): string[] {
  const problems: string[] = [];
  if (overEdges) problems.push(`the children name more than ${MAX_ORDER_EDGES} dependsOn siblings in all; at most ${MAX_ORDER_EDGES} per answer`);
  if (waves.length > MAX_WAVES) problems.push(`the children use ${waves.length} distinct waves; at most ${MAX_WAVES} per answer`);
  return problems;
}

/**
 * The order of `input.desired`, or every problem found: an answer over the bounds (alone, as nothing
 * more is worth saying of it), bad annotations, siblings that are not desired, dependencies on higher
 * waves, and the first cycle (its middle left out when long).
 */
export function childOrderOf(input: ChildOrderInput): ChildOrderResult {
  const problems: string[] = [];
  const { children, ordered, overEdges } = resolveAll(input, problems);
  const waves = byWave(children);
  const tooLarge = bounds(waves, overEdges);
  if (tooLarge.length > 0) return { ok: false, problems: tooLarge };
  higherWaves(children, problems);
  const cycle = findCycle(children);
  if (cycle) problems.push(`dependsOn cycle: ${describeCycle(cycle.slice(0, -1).map((key) => describeRef(children.get(key)!.ref)))}`);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, order: { ordered, children, waves } };
}

/**
 * The order in which unwanted observed children go (their observed annotations): never refused, as
 * deleting must go on. What does not parse counts as wave 0, a sibling that is not going is ignored,
 * and a cycle (a child edited by hand), or more edges than an answer may have, leaves the waves alone
 * to order them.
 */
export function removalOrderOf(input: ChildOrderInput): ChildOrder {
  const { children, ordered, overEdges } = resolveAll(input, []);
  if (overEdges || findCycle(children)) for (const child of children.values()) child.dependsOn = [];
  return { ordered, children, waves: byWave(children) };
}

/**
 * The observed children a sync's removals are ordered among: those it deletes, and the unwanted ones
 * already terminating, which still hold back the deletion of lower waves until they leave the cache
 * (a custom resource's own finalizer may need the Secret of a lower wave to finish). A child released
 * or retained by its deletion policy stays, so it holds back no deletion.
 */
export function goingChildren(decisions: readonly ChildDecision[], observed: readonly KubeObject[], desired: ChildOrder): KubeObject[] {
  const deletes = new Set(decisions.filter((d) => d.action === 'delete').map((d) => orderKeyOf(d.child)));
  return observed.filter((obj) => {
    const key = orderKeyOf(childRefOf(obj));
    return deletes.has(key) || (Boolean(obj.metadata.deletionTimestamp) && !desired.children.has(key));
  });
}
