/**
 * The `loom.dev/ready-when` expressions of one controller's children, compiled when first needed and
 * held while judgements use them (docs/ordering-and-readiness.md, "`readyWhen`: your own rule").
 *
 * At most `size` are kept. A new one takes the place of the least recently used one that no judgement
 * is using, which is released then; while every kept one is in use, the new one is not evaluated and
 * its objects are `Unknown` saying why. So an expression is never released under a running evaluation
 * (which would fail as "no longer in use" and flap the parent's Ready condition), and the evaluator
 * pool holds a bounded number of a controller's annotation expressions, however many its children carry.
 */
import { READY_WHEN_ANNOTATION } from '../api/index.ts';
import type { ReadyWhen } from '../hooks/index.ts';

/** An annotation's expression, compiled, or why it is not evaluated. */
export type Compiled = ReadyWhen | { problem: string };

/** One kept expression and how many judgements use it now. */
interface Kept {
  compiled: Compiled;
  users: number;
}

/** A use of an expression, to be ended once its evaluation has settled. */
export interface ExpressionUse {
  compiled: Compiled;
  done(): void;
}

/** The kept expressions of one controller; see the module comment. */
export interface AnnotationExpressions {
  /** The compiled `expression`, held until `done` is called. */
  use(expression: string): ExpressionUse;
  /** Releases every kept expression. */
  release(): void;
}

/** Why an expression beyond the bound is not evaluated. */
function tooMany(size: number): string {
  return `annotation ${READY_WHEN_ANNOTATION}: not evaluated: this controller's children use more than ${size} distinct `
    + `${READY_WHEN_ANNOTATION} expressions at once; give these children fewer distinct expressions, or their type a readyWhen`;
}

function compileOrProblem(compile: (expression: string) => ReadyWhen, expression: string): Compiled {
  try {
    return compile(expression);
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}

function releaseOf(compiled: Compiled): void {
  if ('release' in compiled) compiled.release();
}

/** Keeps at most `size` expressions compiled by `compile` (which throws for one that does not compile). */
export function annotationExpressions(size: number, compile: (expression: string) => ReadyWhen): AnnotationExpressions {
  // Map order is the order of use: an entry is re-inserted when used.
  const kept = new Map<string, Kept>();

  /** Makes room for one more: false when every kept expression is in use. */
  const makeRoom = (): boolean => {
    if (kept.size < size) return true;
    for (const [expression, entry] of kept) {
      if (entry.users > 0) continue;
      kept.delete(expression);
      releaseOf(entry.compiled);
      return true;
    }
    return false;
  };

  return {
    use(expression) {
      let entry = kept.get(expression);
      if (entry !== undefined) kept.delete(expression);
      else if (makeRoom()) entry = { compiled: compileOrProblem(compile, expression), users: 0 };
      else return { compiled: { problem: tooMany(size) }, done: () => undefined };
      kept.set(expression, entry);
      entry.users++;
      const held = entry;
      let ended = false;
      const done = (): void => {
        if (!ended) held.users--;
        ended = true;
      };
      return { compiled: held.compiled, done };
    },
    release() {
      for (const entry of kept.values()) releaseOf(entry.compiled);
      kept.clear();
    },
  };
}
