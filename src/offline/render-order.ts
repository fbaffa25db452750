/**
 * The order of a render's child writes (docs/ordering-and-readiness.md, "Offline"): the children's order
 * checked as a sync checks it, then loom's own stepping (sync/ordered-writes.ts) over writes that are
 * recorded, not made. A written child is judged from the answer its write would get, as far as the render
 * knows it (`answerOf`: a server-side dry run's under `loom plan`, else the desired object merged onto the
 * observed one, else the desired object), through the judge of the hook request (`readyWhen` included). The result is the report the parent's Ready condition is made of, and
 * what the render prints: each desired child with its wave and readiness, and the holds.
 */
import type { ChildPolicies, KubeObject } from '../api/index.ts';
import {
  childOrderOf, childRefOf, describeHold, describeRef, orderKeyOf, removalOrderOf,
  type ChildDecision, type ChildOrder, type ChildrenReport, type DeclaredKind, type Readiness,
} from '../core/index.ts';
import { writeInOrder } from '../sync/ordered-writes.ts';
import { RenderError } from './render-error.ts';

/** What the foresight needs. */
export interface RenderOrderInput {
  desired: readonly KubeObject[];
  /** The claimed children. */
  observed: readonly KubeObject[];
  /** loom's decisions for them (`planDecisions`). */
  decisions: readonly ChildDecision[];
  /** What the API server would answer to the write of a desired child (`answerOf`). */
  answerOf: (desired: KubeObject) => KubeObject;
  declared: readonly DeclaredKind[];
  ruleOf: (child: KubeObject) => ChildPolicies | undefined;
  /** The request's readiness judge. */
  judge: (objects: KubeObject[]) => Promise<Readiness[]>;
  /** `spec.readyCondition`: readiness is reported even when no child asks for order. */
  reportReadiness: boolean;
}

/** One desired child as the render prints it. */
export interface ChildLine {
  /** `Kind namespace/name`. */
  child: string;
  /** Present when any child asks for order. */
  wave?: number;
  /** The siblings it depends on. */
  dependsOn?: string[];
  /** After the sync: `Current`, or `InProgress: …` (a held child as observed). */
  readiness: string;
  /** Not written by this sync: see `held` for what it waits for. */
  held?: true;
}

/** What a render foresees of the order. */
export interface RenderOrder {
  /** What the Ready condition is made of. */
  report: ChildrenReport;
  readiness: ChildLine[];
  /** The held writes and deletions, as the Ready condition words them; absent when no child asks for order. */
  held: string[] | undefined;
}

function keyOf(obj: KubeObject): string {
  return orderKeyOf(childRefOf(obj));
}

/** The observed children the decisions delete: they go in reverse order. */
function deleted(decisions: readonly ChildDecision[], observed: readonly KubeObject[]): KubeObject[] {
  const deletes = new Set(decisions.filter((d) => d.action === 'delete').map((d) => orderKeyOf(d.child)));
  return observed.filter((obj) => deletes.has(keyOf(obj)));
}

/**
 * What a sync would write and hold, or `undefined` when it writes without order and reports nothing.
 * @throws RenderError when the order is refused (a cycle, a sibling not desired, …), as the sync would fail.
 */
export async function renderOrder(input: RenderOrderInput): Promise<RenderOrder | undefined> {
  const ordering = childOrderOf(input);
  if (!ordering.ok) throw new RenderError(`the children's order is refused:\n${ordering.problems.map((p) => `  ${p}`).join('\n')}`);
  const { order } = ordering;
  const removals = removalOrderOf({ ...input, desired: deleted(input.decisions, input.observed) });
  const ordered = order.ordered || removals.ordered;
  if (!ordered && !input.reportReadiness) return undefined;
  const desired = new Map(input.desired.map((obj) => [keyOf(obj), obj]));
  const observed = new Map(input.observed.map((obj) => [keyOf(obj), obj]));
  const written = await writeInOrder({
    order, removals, decisions: input.decisions, observed,
    execute: (round) => Promise.resolve(round.map((d) => ({ child: d.child, action: d.action, wrote: true }))),
    writtenOf: (key) => {
      const want = desired.get(key);
      return want && input.answerOf(want);
    },
    judge: input.judge,
  });
  const report: ChildrenReport = { ordered, children: written.children, held: written.held, failed: [] };
  return { report, readiness: linesOf(order, report), held: ordered ? written.held.map(describeHold) : undefined };
}

/** Each desired child's line, in desired order. */
function linesOf(order: ChildOrder, report: ChildrenReport): ChildLine[] {
  const held = new Set(report.held.filter((h) => !h.deleting).map((h) => orderKeyOf(h.ref)));
  return report.children.map(({ ref, readiness }) => {
    const child = order.children.get(orderKeyOf(ref));
    const dependsOn = (child?.dependsOn ?? []).map((key) => describeRef(order.children.get(key)!.ref));
    return {
      child: describeRef(ref),
      ...(order.ordered && child && { wave: child.wave }),
      ...(dependsOn.length > 0 && { dependsOn }),
      readiness: readiness.message ? `${readiness.status}: ${readiness.message}` : readiness.status,
      ...(held.has(orderKeyOf(ref)) && { held: true as const }),
    };
  });
}
