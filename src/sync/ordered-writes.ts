/**
 * Writing a plan in order (docs/ordering-and-readiness.md, "Order: waves and dependsOn"): in rounds,
 * each round the writes whose predecessors are settled and ready, in parallel and in plan order, as
 * `executePlan` writes any plan. A predecessor written in this sync is judged from the API server's
 * answer, any other from the cache. Rounds go on while the answers show children ready, so waves of
 * objects that are ready at once cost no extra sync; what stays held is not written, and is reported.
 * Without order the first round is the whole plan: the same writes in the same order as unordered.
 * The running controller executes the rounds (controllers/manage-children.ts); `loom render` and
 * `loom plan` record them (offline/render-order.ts), so both step through the same order.
 */
import type { KubeObject } from '../api/index.ts';
import { PlanStoppedError, type ChildOutcome } from '../apply/index.ts';
import {
  nextRemovals, nextWrites, orderKeyOf, pruneLast, readinessOf,
  type ChildDecision, type ChildOrder, type ChildProgress, type Hold, type Readiness, type ChildRef,
} from '../core/index.ts';

/** What writing in order needs. */
export interface OrderedWritesInput {
  order: ChildOrder;
  /** The order of the unwanted observed children, for deleting them in reverse. */
  removals: ChildOrder;
  decisions: readonly ChildDecision[];
  /** The observed children by order key. */
  observed: ReadonlyMap<string, KubeObject>;
  /** Executes some of the decisions (`executePlan`). */
  execute: (decisions: ChildDecision[]) => Promise<ChildOutcome[]>;
  /** The API server's answer to this sync's last write of a child, by order key. */
  writtenOf: (key: string) => KubeObject | undefined;
  judge: (objects: KubeObject[]) => Promise<Readiness[]>;
  /** The verdict of the last write's answer of a desired child written moments ago that the cache has not delivered yet. */
  lastAnswerOf?: ((key: string) => Readiness | undefined) | undefined;
  /** Told the verdict of each answer, so a later sync can judge the child by it until the cache has it. */
  answered?: ((object: KubeObject, readiness: Readiness) => void) | undefined;
}

/** What the writes came to. */
export interface OrderedWrites {
  outcomes: ChildOutcome[];
  held: Hold[];
  /** Each desired child, in desired order, with its readiness after the writes. */
  children: Array<{ ref: ChildRef; readiness: Readiness }>;
}

/** Decisions that make no API call need no turn. */
function isDue(decision: ChildDecision): boolean {
  return decision.action !== 'unchanged' && decision.action !== 'skip';
}

/** The sync's view of its children, kept up to date round by round. */
class Progress {
  readonly due = new Map<string, ChildDecision>();
  private readonly progress = new Map<string, ChildProgress>();
  private readonly observedReadiness = new Map<string, Readiness>();

  private readonly input: OrderedWritesInput;

  constructor(input: OrderedWritesInput) {
    this.input = input;
    for (const decision of input.decisions) if (isDue(decision)) this.due.set(orderKeyOf(decision.child), decision);
  }

  /** Judges the observed desired children; the ones with no write due are settled by it. */
  async start(): Promise<void> {
    const keys = [...this.input.order.children.keys()].filter((key) => this.input.observed.has(key));
    const verdicts = await this.input.judge(keys.map((key) => this.input.observed.get(key)!));
    keys.forEach((key, i) => this.observedReadiness.set(key, verdicts[i]!));
    for (const key of this.input.order.children.keys()) {
      if (!this.due.has(key)) this.progress.set(key, { state: 'settled', readiness: this.observed(key) });
    }
  }

  observed(key: string): Readiness {
    return this.observedReadiness.get(key) ?? this.input.lastAnswerOf?.(key) ?? readinessOf(undefined);
  }

  of = (key: string): ChildProgress => this.progress.get(key) ?? { state: 'pending' };

  /** Settles the children of a round from its outcomes: failed, gone (deleted to be recreated), or judged from the answer. */
  async settle(outcomes: readonly ChildOutcome[]): Promise<void> {
    const answered: Array<{ key: string; object: KubeObject }> = [];
    for (const outcome of outcomes) {
      const key = orderKeyOf(outcome.child);
      if (!this.input.order.children.has(key)) continue;
      const object = this.input.writtenOf(key);
      if (outcome.error) this.progress.set(key, { state: 'failed' });
      else if ((outcome.action === 'recreate' && outcome.wrote) || outcome.replaced) this.progress.set(key, { state: 'settled', readiness: readinessOf(undefined) });
      else if (object) answered.push({ key, object });
      else this.progress.set(key, { state: 'settled', readiness: this.observed(key) });
    }
    const verdicts = await this.input.judge(answered.map((a) => a.object));
    answered.forEach(({ key, object }, i) => {
      this.progress.set(key, { state: 'settled', readiness: verdicts[i]! });
      this.input.answered?.(object, verdicts[i]!);
    });
  }

  /** Each desired child's readiness now: a held or failed one as observed. */
  children(): OrderedWrites['children'] {
    return [...this.input.order.children.values()].map(({ key, ref }) => {
      const progress = this.of(key);
      return { ref, readiness: progress.state === 'settled' ? progress.readiness : this.observed(key) };
    });
  }
}

/** Writes `input.decisions` in order; see the module comment. */
export async function writeInOrder(input: OrderedWritesInput): Promise<OrderedWrites> {
  const progress = new Progress(input);
  await progress.start();
  const outcomes: ChildOutcome[] = [];
  // Writes in neither order (a release by deletion policy) take the first round.
  let unordered = [...progress.due.keys()].filter((key) => !input.order.children.has(key) && !input.removals.children.has(key));
  for (;;) {
    const writes = nextWrites(input.order, progress.of);
    // A delete made in this sync is seen through by the next one: every going child still exists here
    // (a terminating one too, until it leaves the cache). Deletes wait for the higher waves' writes.
    const removals = pruneLast(nextRemovals(input.removals, { pending: (key) => progress.due.has(key), exists: () => true }), { ...input, progressOf: progress.of });
    const now = new Set([...unordered, ...removals.runnable, ...writes.runnable]);
    unordered = [];
    const round = input.decisions.filter((d) => isDue(d) && now.has(orderKeyOf(d.child)));
    if (round.length === 0) return { outcomes, held: [...writes.held, ...removals.held], children: progress.children() };
    for (const key of now) progress.due.delete(key);
    const done = await input.execute(round);
    outcomes.push(...done);
    // Once the answer is stale no write starts: the sync is requeued, and what it holds does not matter.
    if (done.some((o) => o.error instanceof PlanStoppedError)) return { outcomes, held: [], children: progress.children() };
    await progress.settle(done);
  }
}
