/**
 * What loom would fail a sync for among the children an expression builds literally
 * (docs/ordering-and-readiness.md): a child that depends on a sibling of a later wave, and a cycle
 * of dependencies. Only siblings named literally are matched: a reference to a computed name, or
 * one with a namespace, is left for a running loom to judge.
 */
import { DEPENDS_ON_ANNOTATION, groupOf, type SiblingRef } from '../api/index.ts';
import { dependencyCycles, describeCycle } from '../core/index.ts';
import type { LiteralObject } from './literal-objects.ts';

/** A literal child whose annotations parse. */
export interface OrderedChild {
  object: LiteralObject;
  /** `undefined`: computed by the expression. */
  wave: number | undefined;
  dependsOn: readonly SiblingRef[];
}

/** One problem, at the child it is reported on. */
export interface OrderProblem {
  child: OrderedChild;
  message: string;
}

/** Whether `ref` names `child`. */
function names(ref: SiblingRef, child: OrderedChild): boolean {
  const { kind, name, apiVersion } = child.object;
  if (ref.namespace !== undefined || kind !== ref.kind || name !== ref.name) return false;
  return ref.group === undefined || apiVersion === undefined || groupOf(apiVersion) === ref.group;
}

/** `Kind/name` of a named child. */
function label(child: OrderedChild | undefined): string {
  return `${child?.object.kind ?? ''}/${child?.object.name ?? ''}`;
}

/** The children each child depends on, by index, with the reference that names each. */
function edges(children: readonly OrderedChild[]): { to: number; ref: SiblingRef }[][] {
  // By kind and name, so that thousands of literal children cost a lookup each, not a scan.
  const byName = new Map<string, number[]>();
  children.forEach((child, i) => {
    const key = label(child);
    byName.set(key, [...(byName.get(key) ?? []), i]);
  });
  return children.map((child) => child.dependsOn.flatMap((ref) => {
    const to = byName.get(`${ref.kind}/${ref.name}`)?.find((i) => names(ref, children[i]!));
    return to === undefined ? [] : [{ to, ref }];
  }));
}

function waveProblems(children: readonly OrderedChild[], graph: ReturnType<typeof edges>): OrderProblem[] {
  return children.flatMap((child, i) => (graph[i] ?? []).flatMap(({ to, ref }) => {
    const { wave } = child;
    const later = children[to]?.wave;
    if (wave === undefined || later === undefined || later <= wave) return [];
    return [{ child, message: `${DEPENDS_ON_ANNOTATION}: ${ref.text} is in wave ${later}, after this child's wave ${wave}, so loom would fail every sync that returns them` }];
  }));
}

/** Every problem of order among `children` (see the module comment). */
export function siblingOrderProblems(children: readonly OrderedChild[]): OrderProblem[] {
  const graph = edges(children);
  const loops = dependencyCycles(graph.map((deps) => deps.map(({ to }) => to))).map((loop) => {
    const first = children[loop[0] ?? 0]!;
    return { child: first, message: `${DEPENDS_ON_ANNOTATION}: a cycle: ${describeCycle(loop.map((i) => label(children[i])))}` };
  });
  return [...waveProblems(children, graph), ...loops];
}
