/**
 * The {@link ReadinessJudge} of a controller whose children may carry `readyWhen` expressions
 * (docs/ordering-and-readiness.md, "`readyWhen`: your own rule"). Each object is judged by its own
 * `loom.dev/ready-when` annotation, else by its type's `readyWhen`, else by kstatus's rules; an object
 * being deleted is `Terminating` whatever its expression says.
 *
 * Costs stay bounded: a type's expression is compiled once per controller generation (by the caller);
 * an annotation's is compiled when first needed and kept among a bounded few (`annotation-expressions.ts`);
 * and a verdict that lasts is remembered per (uid, resourceVersion, expression text), so a child that
 * did not change is neither compiled for nor evaluated again at every sync of its parent. A verdict of
 * an expression that reads the clock does not last, so it is never remembered.
 */
import { groupOf, LruMap, READY_WHEN_ANNOTATION, type KubeObject } from '../api/index.ts';
import { readinessOf, type Readiness } from '../core/index.ts';
import type { ReadyWhen, ReadyWhenVerdict } from '../hooks/index.ts';
import { annotationExpressions } from './annotation-expressions.ts';
import type { ReadinessJudge } from './readiness-judge.ts';

/** Distinct annotation expressions kept compiled per controller: its children rarely carry more than a handful. */
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

/** The rule an object is judged by: its annotation's expression (text, compiled when needed), or its type's. */
type Rule = { annotation: string } | { type: ReadyWhen };

/** Builds the judge; see the module comment. */
export function readyWhenJudge(options: ReadyWhenJudgeOptions): ReadyWhenJudge {
  const typeRule = new Map(options.types.map((t) => [`${t.kind}.${groupOf(t.apiVersion)}`, t.readyWhen]));
  const annotations = annotationExpressions(options.maxExpressions ?? DEFAULT_ANNOTATION_EXPRESSIONS, (expression) => options.compile(expression));
  const verdicts = new LruMap<Readiness>(options.maxVerdicts ?? DEFAULT_REMEMBERED_VERDICTS);

  const ruleOf = (obj: KubeObject): Rule | undefined => {
    const annotated = obj.metadata.annotations?.[READY_WHEN_ANNOTATION];
    if (annotated !== undefined && annotated.trim() !== '') return { annotation: annotated };
    const type = typeRule.get(`${obj.kind}.${groupOf(obj.apiVersion)}`);
    return type && { type };
  };

  /** Evaluates `rule`, holding an annotation's compiled expression until the evaluation settles. */
  const evaluate = async (rule: Rule, obj: KubeObject, signal: AbortSignal): Promise<ReadyWhenVerdict> => {
    const use = 'type' in rule ? { compiled: rule.type, done: () => undefined } : annotations.use(rule.annotation);
    try {
      const { compiled } = use;
      if ('problem' in compiled) return { readiness: { status: 'Unknown', message: compiled.problem }, lasting: false };
      return await compiled.judge(obj, signal);
    } finally {
      use.done();
    }
  };

  const judgeOne = async (obj: KubeObject, signal: AbortSignal): Promise<Readiness> => {
    const rule = obj.metadata.deletionTimestamp ? undefined : ruleOf(obj);
    if (rule === undefined) return readinessOf(obj);
    const { uid, resourceVersion } = obj.metadata;
    // By the expression's text, looked up before compiling: an object that did not change costs nothing.
    // A type's source too: one expression written in two places gives verdicts that name different places.
    const ruleKey = 'type' in rule ? `type\n${rule.type.source}\n${rule.type.expression}` : `annotation\n${rule.annotation}`;
    const key = uid && resourceVersion ? `${uid}\n${resourceVersion}\n${ruleKey}` : undefined;
    const remembered = key === undefined ? undefined : verdicts.get(key);
    if (remembered) return remembered;
    const { readiness, lasting } = await evaluate(rule, obj, signal);
    if (key !== undefined && lasting) verdicts.set(key, readiness);
    return readiness;
  };

  let released = false;
  return {
    judge: (objects, signal) => Promise.all(objects.map((obj) => judgeOne(obj, signal))),
    release() {
      if (released) return;
      released = true;
      for (const type of options.types) type.readyWhen.release();
      annotations.release();
    },
  };
}
