/**
 * Stepping through a child order within one sync (docs/ordering-and-readiness.md, "Order: waves and
 * dependsOn"): given where each child stands, which writes may go next and which children are held,
 * with what each waits for. Writes go wave by wave: a child is written once every child of a lower
 * wave and every sibling it depends on is settled and ready. Deletions go in reverse: a child that is
 * going waits while a going child of a higher wave, or one that depends on it, still exists. Pure.
 */
import { isReady, type Readiness } from '../api/readiness/index.ts';
import type { ChildRef } from './child-plan.ts';
import { describeRef, type ChildOrder, type OrderedChild } from './child-order.ts';

/** Where a child stands in this sync. */
export type ChildProgress =
  /** Its write is due and not made yet. */
  | { state: 'pending' }
  /** Its write failed. */
  | { state: 'failed' }
  /** Written, or nothing to write: its readiness now (from the write's answer, else as observed). */
  | { state: 'settled'; readiness: Readiness };

/** A predecessor a held child waits for, and why it is not ready. */
export interface Wait {
  ref: ChildRef;
  /** `held`, `write failed`, `to be deleted first`, or its readiness (`InProgress: …`). */
  why: string;
}

/** A child not written in this sync, and the first few predecessors it waits for. */
export interface Hold {
  ref: ChildRef;
  /** True for a deletion held until its successors are gone. */
  deleting: boolean;
  waitsFor: Wait[];
  /** Predecessors it also waits for, not named. */
  more: number;
}

/** What may be written next, and what is held. */
export interface Steps {
  /** Keys of the children whose writes may go now. */
  runnable: string[];
  held: Hold[];
}

/** Predecessors named per held child. */
export const NAMED_WAITS = 3;

/** Whether a predecessor lets its successors go. */
export function isSatisfied(progress: ChildProgress): boolean {
  return progress.state === 'settled' && isReady(progress.readiness);
}

/** Why a predecessor holds its successors. */
function whyNot(progress: ChildProgress): string {
  if (progress.state === 'pending') return 'held';
  if (progress.state === 'failed') return 'write failed';
  const { status, message } = progress.readiness;
  return message ? `${status}: ${message}` : status;
}

function holdOf(child: OrderedChild, waits: { refs: ChildRef[]; total: number; why: (ref: ChildRef, index: number) => string }, deleting: boolean): Hold {
  const named = waits.refs.slice(0, NAMED_WAITS);
  return { ref: child.ref, deleting, waitsFor: named.map((ref, i) => ({ ref, why: waits.why(ref, i) })), more: waits.total - named.length };
}

/** Unsatisfied children of the waves passed so far: the first few, and how many. */
interface Behind {
  first: OrderedChild[];
  count: number;
}

/** How a step reads the sync: the order, and where each child stands. */
interface StepView {
  order: ChildOrder;
  progressOf: (key: string) => ChildProgress;
}

/**
 * The hold of one pending child of a wave, given the waves behind it; `undefined` when it may be
 * written. A predecessor it depends on that is also behind it (a lower wave) is named and counted once.
 */
function stepOf(child: OrderedChild, behind: Behind, { order, progressOf }: StepView): Hold | undefined {
  const unready = child.dependsOn.map((key) => order.children.get(key)!).filter((dep) => !isSatisfied(progressOf(dep.key)));
  if (unready.length === 0 && behind.count === 0) return undefined;
  const waits = [...new Map([...unready, ...behind.first].map((c) => [c.key, c])).values()];
  const sameWave = unready.filter((dep) => dep.wave >= child.wave).length;
  return holdOf(child, { refs: waits.map((c) => c.ref), total: behind.count + sameWave, why: (_, i) => whyNot(progressOf(waits[i]?.key ?? '')) }, false);
}

/**
 * The writes of desired children that may go now, and the children held, lowest wave first. A child is
 * pending while its write is due; one whose write is not due (unchanged, awaiting the cache) is settled
 * from the start.
 */
export function nextWrites(order: ChildOrder, progressOf: (key: string) => ChildProgress): Steps {
  const runnable: string[] = [];
  const held: Hold[] = [];
  const behind: Behind = { first: [], count: 0 };
  for (const wave of order.waves) {
    for (const child of wave) {
      if (progressOf(child.key).state !== 'pending') continue;
      const hold = stepOf(child, behind, { order, progressOf });
      if (hold) held.push(hold);
      else runnable.push(child.key);
    }
    for (const child of wave.filter((c) => !isSatisfied(progressOf(c.key)))) {
      if (behind.first.length < NAMED_WAITS) behind.first.push(child);
      behind.count++;
    }
  }
  return { runnable, held };
}

/** Where the deletion of each going child stands. */
export interface RemovalProgress {
  /** Its delete is due and not made yet. */
  pending: (key: string) => boolean;
  /** It still exists (a delete made in this sync is not yet seen through). */
  exists: (key: string) => boolean;
}

/** How many of `sorted` (highest wave first) are in a higher wave than `wave`: a binary search. */
function countAbove(sorted: readonly OrderedChild[], wave: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]!.wave > wave) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The children of `order` that `keep` keeps, highest wave first, each wave in its order. */
function highestFirst(order: ChildOrder, keep: (child: OrderedChild) => boolean): OrderedChild[] {
  return [...order.waves].reverse().flatMap((wave) => wave.filter(keep));
}

/**
 * The going children that hold the deletion of `child`: its existing dependents, then the existing
 * children of higher waves; the first few named, all counted. Linear in its dependents.
 */
function blockersOf(child: OrderedChild, dependents: readonly OrderedChild[], existing: readonly OrderedChild[]): { refs: ChildRef[]; total: number } {
  const first = new Set(dependents);
  const higher: OrderedChild[] = [];
  for (const c of existing) {
    if (higher.length + first.size >= NAMED_WAITS || c.wave <= child.wave) break;
    if (!first.has(c)) higher.push(c);
  }
  const alsoHigher = dependents.filter((c) => c.wave > child.wave).length;
  const total = dependents.length + countAbove(existing, child.wave) - alsoHigher;
  return { refs: [...dependents, ...higher].slice(0, NAMED_WAITS).map((c) => c.ref), total };
}

/**
 * The deletions that may go now and those held (see the module comment). `removals` is the order of
 * the unwanted observed children (`removalOrderOf`). Linear in the children and their dependencies.
 */
export function nextRemovals(removals: ChildOrder, progress: RemovalProgress): Steps {
  const existing = highestFirst(removals, (c) => progress.exists(c.key));
  const isThere = new Set(existing);
  const dependents = new Map<string, OrderedChild[]>();
  for (const child of removals.children.values()) {
    if (!isThere.has(child)) continue;
    for (const key of child.dependsOn) {
      const list = dependents.get(key);
      if (list) list.push(child);
      else dependents.set(key, [child]);
    }
  }
  const runnable: string[] = [];
  const held: Hold[] = [];
  for (const child of removals.children.values()) {
    if (!progress.pending(child.key)) continue;
    const blockers = blockersOf(child, dependents.get(child.key) ?? [], existing);
    if (blockers.total === 0) runnable.push(child.key);
    else held.push(holdOf(child, { ...blockers, why: () => 'to be deleted first' }, true));
  }
  return { runnable, held };
}

/**
 * Prune last: the deletions of `steps` that may go now, given the desired children. A going child
 * waits while a desired child of a higher wave is not settled in this sync (held, or its write not
 * made or failed): that successor may still use it, as a StatefulSet still mounts the claim it is
 * moving off. What waits is held, naming the first few such children.
 */
export function pruneLast(steps: Steps, view: { removals: ChildOrder; order: ChildOrder; progressOf: (key: string) => ChildProgress }): Steps {
  const unsettled = highestFirst(view.order, (c) => view.progressOf(c.key).state !== 'settled');
  const runnable: string[] = [];
  const held: Hold[] = [];
  for (const key of steps.runnable) {
    const child = view.removals.children.get(key)!;
    const total = countAbove(unsettled, child.wave);
    const named = unsettled.slice(0, Math.min(total, NAMED_WAITS));
    if (total === 0) runnable.push(key);
    else held.push(holdOf(child, { refs: named.map((c) => c.ref), total, why: (_, i) => whyNot(view.progressOf(named[i]!.key)) }, true));
  }
  return { runnable, held: [...held, ...steps.held] };
}

/** A hold as a clause: `Deployment default/web waits for PersistentVolumeClaim default/data (InProgress: …)`. */
export function describeHold(hold: Hold): string {
  const waits = hold.waitsFor.map((w) => `${describeRef(w.ref)} (${w.why})`).join(', ');
  const more = hold.more > 0 ? ` and ${hold.more} more` : '';
  return `${hold.deleting ? 'deleting ' : ''}${describeRef(hold.ref)} waits for ${waits}${more}`;
}
