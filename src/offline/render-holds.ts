/**
 * The holds a render foresees (docs/ordering-and-readiness.md, "Offline"): the children's order checked
 * as a sync checks it, then stepped through as a sync would write it, each written child judged from
 * what a render knows of it (the `--observed` object, else the desired one, as the API server's answer
 * is not there to judge). Children that would wait are listed with what they would wait for.
 */
import type { ChildPolicies, KubeObject } from '../api/index.ts';
import {
  childOrderOf, childRefOf, describeHold, nextWrites, orderKeyOf, readinessOf, type ChildProgress, type DeclaredKind,
} from '../core/index.ts';
import { RenderError } from './render-error.ts';

/** What the foresight needs. */
export interface RenderHoldsInput {
  desired: readonly KubeObject[];
  observed: readonly KubeObject[];
  declared: readonly DeclaredKind[];
  ruleOf: (child: KubeObject) => ChildPolicies | undefined;
}

/**
 * The held children, as `Kind ns/name waits for …` lines, or `undefined` when no child asks for order.
 * @throws RenderError when the order is refused (a cycle, a sibling not desired, …), as the sync would fail.
 */
export function renderHolds(input: RenderHoldsInput): string[] | undefined {
  const ordering = childOrderOf(input);
  if (!ordering.ok) throw new RenderError(`the children's order is refused:\n${ordering.problems.map((p) => `  ${p}`).join('\n')}`);
  if (!ordering.order.ordered) return undefined;
  const known = new Map([...input.desired, ...input.observed].map((obj) => [orderKeyOf(childRefOf(obj)), obj]));
  const progress = new Map<string, ChildProgress>();
  const progressOf = (key: string): ChildProgress => progress.get(key) ?? { state: 'pending' };
  for (;;) {
    const steps = nextWrites(ordering.order, progressOf);
    if (steps.runnable.length === 0) return steps.held.map(describeHold);
    for (const key of steps.runnable) progress.set(key, { state: 'settled', readiness: readinessOf(known.get(key)) });
  }
}
