/**
 * The {@link ReadinessJudge} of a controller whose children may carry `readyWhen` expressions
 * (docs/ordering-and-readiness.md, "`readyWhen`: your own rule"). Each object is judged by its own
 * `loom.dev/ready-when` annotation, else by its type's `readyWhen`, else by kstatus's rules; an object
 * being deleted is `Terminating` whatever its expression says.
 *
 * Costs stay bounded: a type's expression is compiled once per controller generation (by the caller);
 * an annotation's is compiled when first seen and kept among the most recently used few; and a verdict
 * that lasts is remembered per (uid, resourceVersion, expression), so a child that did not change is
 * not evaluated again at every sync of its parent.
 */
import { groupOf, READY_WHEN_ANNOTATION, type KubeObject } from '../api/index.ts';
import { readinessOf, type Readiness } from '../core/index.ts';
import type { ReadyWhen } from '../hooks/index.ts';
import type { ReadinessJudge } from './readiness-judge.ts';

/** Annotation expressions kept compiled: a controller's children rarely carry more than a handful. */
export const DEFAULT_ANNOTATION_EXPRESSIONS = 64;
/** Verdicts remembered: one per child whose readiness an expression decides, for thousands of children. */
export const DEFAULT_REMEMBERED_VERDICTS = 20_000;

/** One declared type whose children its `readyWhen` judges. */
export interface TypeReadyWhen {
  apiVersion: string;
  kind: string;
  readyWhen: ReadyWhen;
}

/** What a judge is built from. */
export interface ReadyWhenJudgeOptions {
  /** The declared types that have a `readyWhen`, compiled. */
  types: readonly TypeReadyWhen[];
  /** Compiles an annotation's expression; throws for one that does not compile. */
  compile(expression: string): ReadyWhen;
  maxExpressions?: number | undefined;
  maxVerdicts?: number | undefined;
}

/** A judge that holds compiled expressions: `release` them when the controller stops. */
export interface ReadyWhenJudge extends ReadinessJudge {
  /** Releases every expression, the types' included. Idempotent. */
  release(): void;
}

/** A map of its `size` most recently used entries, telling `evicted` of each it lets go. */
function recentlyUsed<V>(size: number, evicted: (value: V) => void = () => undefined) {
  const entries = new Map<string, V>();
  return {
    get(key: string): V | undefined {
      const value = entries.get(key);
      if (value === undefined) return undefined;
      // Re-inserted, so insertion order is the order of use.
      entries.delete(key);
      entries.set(key, value);
      return value;
    },
    set(key: string, value: V): void {
      entries.set(key, value);
      if (entries.size <= size) return;
      const [oldest, old] = entries.entries().next().value!;
      entries.delete(oldest);
      evicted(old);
    },
    values: () => [...entries.values()],
  };
}

/** An annotation's expression, compiled, or why it does not compile. */
type Compiled = ReadyWhen | { problem: string };

/** Builds the judge; see the module comment. */
export function readyWhenJudge(options: ReadyWhenJudgeOptions): ReadyWhenJudge {
  const typeRule = new Map(options.types.map((t) => [`${t.kind}.${groupOf(t.apiVersion)}`, t.readyWhen]));
  const annotations = recentlyUsed<Compiled>(options.maxExpressions ?? DEFAULT_ANNOTATION_EXPRESSIONS, (c) => 'release' in c && c.release());
  const verdicts = recentlyUsed<Readiness>(options.maxVerdicts ?? DEFAULT_REMEMBERED_VERDICTS);

  const annotationRule = (expression: string): Compiled => {
    let compiled = annotations.get(expression);
    if (compiled === undefined) {
      try {
        compiled = options.compile(expression);
      } catch (error) {
        compiled = { problem: error instanceof Error ? error.message : String(error) };
      }
      annotations.set(expression, compiled);
    }
    return compiled;
  };

  const ruleOf = (obj: KubeObject): Compiled | undefined => {
    const annotated = obj.metadata.annotations?.[READY_WHEN_ANNOTATION];
    if (annotated !== undefined && annotated.trim() !== '') return annotationRule(annotated);
    return typeRule.get(`${obj.kind}.${groupOf(obj.apiVersion)}`);
  };

  const judgeOne = async (obj: KubeObject, signal: AbortSignal): Promise<Readiness> => {
    const rule = obj.metadata.deletionTimestamp ? undefined : ruleOf(obj);
    if (rule === undefined) return readinessOf(obj);
    if ('problem' in rule) return { status: 'Unknown', message: rule.problem };
    const { uid, resourceVersion } = obj.metadata;
    // The source too: one expression written in two places gives verdicts that name different places.
    const key = uid && resourceVersion ? `${uid}\n${resourceVersion}\n${rule.source}\n${rule.expression}` : undefined;
    const remembered = key === undefined ? undefined : verdicts.get(key);
    if (remembered) return remembered;
    const { readiness, lasting } = await rule.judge(obj, signal);
    if (key !== undefined && lasting) verdicts.set(key, readiness);
    return readiness;
  };

  let released = false;
  return {
    judge: (objects, signal) => Promise.all(objects.map((obj) => judgeOne(obj, signal))),
    release() {
      if (released) return;
      released = true;
      for (const rule of [...options.types.map((t) => t.readyWhen), ...annotations.values()]) if ('release' in rule) rule.release();
    },
  };
}
