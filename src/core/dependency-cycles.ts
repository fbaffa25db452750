/**
 * Cycles among children that depend on each other (docs/ordering-and-readiness.md), for the sync's
 * order and for `loom validate` alike: found by a depth-first walk that keeps a stack of its own, so
 * a chain of thousands of children cannot overflow the call stack, and described with the middle of
 * a long cycle left out, so a message stays short enough for an event and a condition. Pure.
 */

/** A graph: for each node, by index, the indexes of the nodes it depends on. */
export type DependencyGraph = readonly (readonly number[])[];

type Visit = 'new' | 'open' | 'done';

/** One frame of the walk: a node on the path, and the next of its edges to follow. */
interface Frame {
  node: number;
  next: number;
}

/** What one walk reads and adds to: the graph, each node's state, the cycles found and how many are wanted. */
interface Search {
  graph: DependencyGraph;
  state: Visit[];
  found: number[][];
  limit: number;
}

/** Walks from `root`, appending to `found` each cycle met, as the nodes on it; stops at `limit` cycles. */
function walk({ graph, state, found, limit }: Search, root: number): void {
  const path: Frame[] = [{ node: root, next: 0 }];
  // Where each open node sits on the path: a cycle is cut out of it without a search.
  const at = new Map<number, number>([[root, 0]]);
  state[root] = 'open';
  for (let top = path.at(-1); top !== undefined && found.length < limit; top = path.at(-1)) {
    const to = graph[top.node]?.[top.next++];
    if (to === undefined) {
      state[top.node] = 'done';
      at.delete(top.node);
      path.pop();
    } else if (state[to] === 'open') {
      found.push(path.slice(at.get(to)).map((frame) => frame.node));
    } else if (state[to] === 'new') {
      state[to] = 'open';
      at.set(to, path.length);
      path.push({ node: to, next: 0 });
    }
  }
}

/**
 * The cycles of `graph`, each once, as the nodes on it from where a walk in index order first meets
 * it; at most `limit` of them. Linear in the nodes and edges (and the length of the cycles found).
 */
export function dependencyCycles(graph: DependencyGraph, limit = Number.POSITIVE_INFINITY): number[][] {
  const state = graph.map((): Visit => 'new');
  const found: number[][] = [];
  for (let root = 0; root < graph.length && found.length < limit; root++) {
    if (state[root] === 'new') walk({ graph, state, found, limit }, root);
  }
  return found;
}

/** The most members of a cycle a message names: a long one is cut in its middle. */
export const CYCLE_SHOWN = 8;

/** `A → B → C → A`, back to the first member, with the middle of a long cycle left out. */
export function describeCycle(members: readonly string[]): string {
  const shown = members.length <= CYCLE_SHOWN
    ? members
    : [...members.slice(0, CYCLE_SHOWN - 1), `… ${members.length - CYCLE_SHOWN} more`, members.at(-1) ?? ''];
  return [...shown, members[0] ?? ''].join(' → ');
}
