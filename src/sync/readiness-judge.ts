/**
 * How a sync tells whether objects are ready (docs/ordering-and-readiness.md, "Readiness"): a child's
 * `readyWhen` expression (its `loom.dev/ready-when` annotation, else its type's rule) when it has one,
 * else kstatus's rules. Expressions run in the isolated evaluator, so judging is asynchronous; the
 * judge that knows no expressions is {@link kstatusJudge}.
 */
import type { KubeObject } from '../api/index.ts';
import { readinessOf, type Readiness } from '../core/index.ts';

/** Judges the readiness of objects a sync has observed or written. */
export interface ReadinessJudge {
  /** The readiness of each of `objects`, in their order. Never rejects for one object's expression: that object is `Unknown`. */
  judge(objects: readonly KubeObject[], signal: AbortSignal): Promise<Readiness[]>;
}

/** kstatus's rules alone: for controllers without `readyWhen`, and for tests. */
export const kstatusJudge: ReadinessJudge = {
  judge: (objects) => Promise.resolve(objects.map((obj) => readinessOf(obj))),
};
