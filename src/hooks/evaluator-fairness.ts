/**
 * How the evaluator pool (`evaluator-pool.ts`) shares its processes between controllers (the authors
 * of expressions): pure decisions over plain data, so each rule is tested on its own.
 *
 * - Turns: a free process goes to the waiting expression whose controller holds the fewest processes,
 *   then whose controller was served longest ago, then which waits longest. So controllers take turns,
 *   however many expressions (hooks) each has.
 * - Share: a controller never holds more than `processes − 1` of them (at least one), so one with
 *   several runaway hooks leaves a process to the others.
 * - Standing: an expression whose last call ended its process (stopped at its deadline, or a crash)
 *   is suspect until a call of it ends on its own. Being stopped to make room changes no standing:
 *   a slow call in good standing that gives way must not then queue behind the runaways. Suspects
 *   together hold at most `processes − 1` (at least one), so however many controllers run away, one
 *   process is kept for the expressions in good standing, and none of them waits for a process to
 *   be started.
 * - Making room: when a controller that holds no process has a call in good standing waiting for a
 *   quarter of its own budget ({@link PATIENCE}) and every process is busy, a call that has itself
 *   run at least that long is stopped: a suspect's first, then one of the controller that holds the
 *   most processes, then the one that has run longest. Its process is killed, its call fails saying
 *   why (no strike, `evaluator-strikes.ts`), and the waiting call runs on the new one.
 *
 * The guarantee, with `processes` ≥ 2 (the default): however many controllers run away, whatever
 * their budgets, a call in good standing of a controller that holds no process starts at once while
 * only suspects keep the other processes busy (every runaway is one once stopped at its deadline), and
 * otherwise within `timeoutMs / 4` plus one watchdog tick (`graceMs / 2`) plus the start of a
 * process (a fraction of a second; seconds on a loaded machine). Its latency is that plus its own
 * run. With two runaway controllers (30 s budgets) on the default two processes, a healthy 500 ms
 * hook's p99 went from 34 s to 29–166 ms (`bench/evaluator-fairness.ts`). The price: while more controllers in good
 * standing are busy than there are processes, a call running longer than a waiting call's patience
 * may be cut short, and its sync is retried with backoff. With one process, the only guarantee is
 * making room, each time at the cost of starting a process.
 */

/** The share of its budget a call waits for a busy pool before another controller's call makes room. */
export const PATIENCE = 0.25;

/** A controller as the pool schedules it. */
export interface Owner {
  readonly name: string;
  /** When it last got a process (a counter; 0: never). */
  lastServed: number;
}

/** An expression waiting for a process: its controller, and since when its oldest call waits. */
export interface Waiting {
  readonly owner: Owner;
  /** Its last call ended its process. */
  readonly suspect: boolean;
  /** The budget of the waiting call, ms. */
  readonly timeoutMs: number;
  readonly since: number;
}

/** A busy process: whose call it runs, and since when. */
export interface Running {
  readonly owner: Owner;
  /** The expression's last call ended its process. */
  readonly suspect: boolean;
  readonly since: number;
}

/** Processes held by each controller. */
export function holdings(running: readonly Running[]): Map<Owner, number> {
  const held = new Map<Owner, number>();
  for (const { owner } of running) held.set(owner, (held.get(owner) ?? 0) + 1);
  return held;
}

/** The most processes one controller may hold. */
export function shareOf(processes: number): number {
  return Math.max(1, processes - 1);
}

/**
 * Which of `waiting` (in the order they began to wait) gets the next free process, or `undefined`
 * when each belongs to a controller that holds its full share, or is a suspect while suspects hold theirs.
 */
export function whoseTurn<T extends Waiting>(waiting: readonly T[], running: readonly Running[], processes: number): T | undefined {
  const held = holdings(running);
  const share = shareOf(processes);
  const suspectsFull = running.filter((r) => r.suspect).length >= share;
  let best: T | undefined;
  for (const candidate of waiting) {
    const count = held.get(candidate.owner) ?? 0;
    if (count >= share || (candidate.suspect && suspectsFull)) continue;
    if (best === undefined || before(count, candidate.owner, held.get(best.owner) ?? 0, best.owner)) best = candidate;
  }
  return best;
}

function before(count: number, owner: Owner, bestCount: number, bestOwner: Owner): boolean {
  return count < bestCount || (count === bestCount && owner.lastServed < bestOwner.lastServed);
}

/**
 * Which of `running` (every process, all busy) to stop so that a waiting call of a controller holding
 * none can run, at `now`; `undefined` when none has waited out its patience or no call has run as long.
 */
export function whoMakesRoom(waiting: readonly Waiting[], running: readonly Running[], now: number): number | undefined {
  const held = holdings(running);
  // A suspect waits for its turn among the suspects: stopping a call for it would only feed a runaway.
  const overdue = waiting.filter((w) => !w.suspect && !held.has(w.owner) && now - w.since >= w.timeoutMs * PATIENCE);
  if (overdue.length === 0) return undefined;
  const patience = Math.min(...overdue.map((w) => w.timeoutMs * PATIENCE));
  let victim: number | undefined;
  running.forEach((candidate, index) => {
    if (now - candidate.since < patience) return;
    if (victim === undefined || stopsBefore(candidate, running[victim]!, held)) victim = index;
  });
  return victim;
}

/**
 * Whether `candidate` is stopped to make room before `best`: a suspect first (a runaway's call, rather
 * than a slow one in good standing that happened to start earlier), then the controller holding more,
 * then the call that has run longer.
 */
function stopsBefore(candidate: Running, best: Running, held: Map<Owner, number>): boolean {
  if (candidate.suspect !== best.suspect) return candidate.suspect;
  const count = held.get(candidate.owner)!;
  const bestCount = held.get(best.owner)!;
  return count > bestCount || (count === bestCount && candidate.since < best.since);
}
