/**
 * The evaluator pool's waiting line (`evaluator-pool.ts`): the expressions that have calls waiting
 * and no process, in the order they began to wait, and the controllers they belong to. Which of them
 * runs next is decided by the rules of `evaluator-fairness.ts`; this keeps the line and the record
 * of who was served when.
 */
import { whoseTurn, type Owner, type Running, type Waiting } from './evaluator-fairness.ts';

/** What the line needs to know of an expression. */
export interface InLine {
  readonly owner: Owner;
  readonly suspect: boolean;
  readonly definition: { readonly timeoutMs: number };
  /** Its waiting calls, oldest first. */
  readonly waiting: readonly { readonly since: number }[];
  /** The process its calls are on, while any are. */
  readonly on: unknown;
}

/** The waiting line of a pool. */
export interface Turns<T extends InLine> {
  /** How many expressions wait. */
  readonly length: number;
  /** The expression that has waited longest. */
  first(): T | undefined;
  /** Queues `expression` at the end if it has waiting calls, no process, and is not queued yet. */
  join(expression: T): void;
  leave(expression: T): void;
  /** Each queued expression as the fairness rules see it. */
  waiting(): (Waiting & { expression: T })[];
  /** Takes the expression whose turn it is (see `whoseTurn`), recording its controller as served. */
  next(running: readonly Running[], processes: number): T | undefined;
  /** Empties the line, returning who was in it. */
  drain(): T[];
}

/** An empty line. */
export function turnLine<T extends InLine>(): Turns<T> {
  const line: T[] = [];
  let served = 0;
  const leave = (expression: T): void => {
    if (line.includes(expression)) line.splice(line.indexOf(expression), 1);
  };
  const waiting = () => line.map((expression) => ({
    expression, owner: expression.owner, suspect: expression.suspect, timeoutMs: expression.definition.timeoutMs, since: expression.waiting[0]!.since,
  }));
  return {
    get length() {
      return line.length;
    },
    first: () => line[0],
    join(expression) {
      if (expression.on === undefined && expression.waiting.length > 0 && !line.includes(expression)) line.push(expression);
    },
    leave,
    waiting,
    next(running, processes) {
      const next = whoseTurn(waiting(), running, processes)?.expression;
      if (next !== undefined) {
        leave(next);
        next.owner.lastServed = ++served;
      }
      return next;
    },
    drain: () => line.splice(0),
  };
}

/** A controller, and how many of its expressions are defined. */
export interface SharedOwner extends Owner {
  expressions: number;
}

/** The controllers of a pool's expressions, by name; one leaves with its last expression. */
export interface OwnerBook {
  join(name: string): SharedOwner;
  leave(owner: SharedOwner): void;
}

/** An empty book. */
export function ownerBook(): OwnerBook {
  const owners = new Map<string, SharedOwner>();
  return {
    join(name) {
      const owner = owners.get(name) ?? { name, lastServed: 0, expressions: 0 };
      owners.set(name, owner);
      owner.expressions++;
      return owner;
    },
    leave(owner) {
      if (--owner.expressions === 0) owners.delete(owner.name);
    },
  };
}
