/**
 * The pool's scheduling between controllers, with fake processes and a hand-driven clock (issue: two
 * controllers' runaway expressions held both evaluator processes, and every other JSONata hook waited
 * for their 30 s budgets to end).
 */
import { describe, expect, it } from 'vitest';
import { manualClock, settle } from '../engine/manual-clock.test-support.ts';
import type { EvaluatorReply, EvaluatorRequest } from './evaluator-protocol.ts';
import { createEvaluatorPool, type EvaluatorAnswer, type EvaluatorPool } from './evaluator-pool.ts';
import type { ProcessEvents } from './evaluator-process.ts';

/** A fake evaluator process: records what loom sends, and replies only when the test says so. */
interface FakeProcess {
  received: EvaluatorRequest[];
  killed: boolean;
  ready(): void;
  /** Answers call number `call`. */
  answer(call: number, response: Record<string, unknown>): void;
  /** The calls sent and not answered, oldest first. */
  calls(): Extract<EvaluatorRequest, { type: 'call' }>[];
}

function fakes() {
  const processes: FakeProcess[] = [];
  const start = (_entry: URL, _heapMiB: number, events: ProcessEvents) => {
    const answered = new Set<number>();
    const fake: FakeProcess = {
      received: [], killed: false,
      ready: () => events.reply({ type: 'ready' }),
      answer: (call, response) => {
        answered.add(call);
        events.reply({ type: 'result', call, response } satisfies EvaluatorReply);
      },
      calls: () => fake.received.filter((m): m is Extract<EvaluatorRequest, { type: 'call' }> => m.type === 'call' && !answered.has(m.call)),
    };
    processes.push(fake);
    return {
      pid: undefined,
      send: (message: EvaluatorRequest) => void (fake.killed || fake.received.push(message)),
      kill: () => {
        if (fake.killed) return;
        fake.killed = true;
        queueMicrotask(() => events.exit({ code: null, signal: 'SIGKILL', lastWords: '' }));
      },
    };
  };
  /** Makes every started process ready, and waits for what that sets off. */
  const allReady = async (): Promise<void> => {
    for (const fake of processes) if (fake.received.length === 0 && !fake.killed) fake.ready();
    await settle();
  };
  const alive = () => processes.filter((p) => !p.killed);
  return { processes, start, allReady, alive };
}

function setup(processes: number) {
  const clock = manualClock();
  const fake = fakes();
  const pool: EvaluatorPool = createEvaluatorPool({ entry: new URL('file:///fake'), processes, heapMiB: 64, graceMs: 100, clock, start: fake.start });
  return { clock, fake, pool };
}

const never = new AbortController().signal;
/** Records how a call ended, without waiting for it. */
function track(promise: Promise<EvaluatorAnswer>) {
  const state: { answer?: EvaluatorAnswer; error?: unknown } = {};
  void promise.then((answer) => (state.answer = answer), (error: unknown) => (state.error = error));
  return state;
}
/** The message of a failure answer, or what else it was. */
const failureOf = (answer: EvaluatorAnswer | undefined): string => (answer !== undefined && 'failure' in answer ? answer.failure.message : `not a failure: ${JSON.stringify(answer)}`);
const define = (pool: EvaluatorPool, owner: string, timeoutMs: number, hook: 'sync' | 'finalize' | 'customize' = 'sync') =>
  pool.define({ expression: `"${owner} ${hook}"`, hook, timeoutMs }, owner);
/** The expression a process is running, by the text `define` gave it. */
const runningOn = (fake: FakeProcess): string | undefined => {
  const call = fake.calls()[0];
  const defined = fake.received.find((m) => m.type === 'define' && m.id === call?.id);
  return defined?.type === 'define' ? defined.definition.expression : undefined;
};

describe('evaluator pool: a fair share for each controller', () => {
  it('answers a third controller within its own budget while two controllers’ runaways hold both processes', async () => {
    const { clock, fake, pool } = setup(2);
    const runawayA = track(define(pool, 'a', 30_000).evaluate({}, never, 'pa'));
    const runawayB = track(define(pool, 'b', 30_000).evaluate({}, never, 'pb'));
    await settle();
    await fake.allReady();
    expect(fake.processes.map(runningOn)).toEqual(['"a sync"', '"b sync"']);
    await clock.advance(5_000); // both have run for a while: neither is near its deadline

    const healthy = track(define(pool, 'h', 500).evaluate({}, never, 'ph'));
    const arrived = clock.now();
    for (let waited = 0; waited < 500 && fake.processes.every((p) => !p.killed); waited += 50) await clock.advance(50);
    await fake.allReady();
    const onNew = fake.alive().find((p) => runningOn(p) === '"h sync"');
    expect(onNew, 'the healthy call was sent to a process').toBeDefined();
    onNew!.answer(onNew!.calls()[0]!.call, { ok: true });
    await settle();

    expect(healthy.answer).toEqual({ response: { ok: true } });
    expect(clock.now() - arrived).toBeLessThan(500);
    // The runaway that gave way ran longest (both did, equally: the first one started) and failed, saying why.
    const stopped = [runawayA, runawayB].filter((r) => r.answer !== undefined);
    expect(stopped).toHaveLength(1);
    expect(failureOf(stopped[0]!.answer)).toMatch(/^sync hook: JSONata evaluation stopped after \d+ ms of its 30000 ms budget, so that another controller's hook could run/);
  });

  it('keeps a process for the others once runaways have been stopped: they share the rest', async () => {
    const { clock, fake, pool } = setup(2);
    const runawayA = define(pool, 'a', 1_000);
    const runawayB = define(pool, 'b', 1_000);
    const first = [track(runawayA.evaluate({}, never, 'pa')), track(runawayB.evaluate({}, never, 'pb'))];
    await settle();
    await fake.allReady();
    await clock.advance(1_200); // both killed at their deadline
    expect(first.map((c) => failureOf(c.answer))).toEqual([expect.stringContaining('timed out'), expect.stringContaining('timed out')]);
    track(runawayA.evaluate({}, never, 'pa2'));
    track(runawayB.evaluate({}, never, 'pb2'));
    await settle();
    await fake.allReady();
    expect(fake.alive().map(runningOn).filter(Boolean)).toHaveLength(1);

    track(define(pool, 'h', 500).evaluate({}, never, 'ph'));
    await settle();
    await fake.allReady();
    expect(fake.alive().map(runningOn)).toContain('"h sync"');
    expect(fake.processes.filter((p) => p.killed)).toHaveLength(2);
  });

  it('lets no suspect make room: runaways wait their turn among themselves', async () => {
    const { clock, fake, pool } = setup(2);
    const runawayA = define(pool, 'a', 1_000);
    const runawayB = define(pool, 'b', 1_000);
    track(runawayA.evaluate({}, never, 'pa'));
    track(runawayB.evaluate({}, never, 'pb'));
    await settle();
    await fake.allReady();
    await clock.advance(1_200); // both killed at their deadline: suspects now
    track(runawayA.evaluate({}, never, 'pa2'));
    track(runawayB.evaluate({}, never, 'pb2'));
    track(define(pool, 'h', 30_000).evaluate({}, never, 'ph'));
    await settle();
    await fake.allReady();
    expect(fake.alive().map(runningOn)).toContain('"h sync"');
    await clock.advance(600); // past the waiting suspect's patience (250 ms), before the running one's deadline
    expect(fake.processes.filter((p) => p.killed)).toHaveLength(2);
  });

  it('makes room by stopping a suspect before a slow call in good standing that started earlier', async () => {
    const { clock, fake, pool } = setup(2);
    const runaway = define(pool, 'a', 1_000);
    const slow = track(define(pool, 'b', 30_000).evaluate({}, never, 'pb'));
    const first = track(runaway.evaluate({}, never, 'pa'));
    await settle();
    await fake.allReady();
    await clock.advance(1_200); // the runaway is killed at its deadline: a suspect now
    expect(failureOf(first.answer)).toContain('timed out');
    const again = track(runaway.evaluate({}, never, 'pa2'));
    await settle();
    await fake.allReady();
    expect(fake.alive().map(runningOn).sort()).toEqual(['"a sync"', '"b sync"']);

    track(define(pool, 'c', 400).evaluate({}, never, 'pc'));
    await clock.advance(200); // past the waiting call's patience (100 ms), and the runaway has run as long
    expect(failureOf(again.answer)).toMatch(/so that another controller's hook could run/);
    expect(slow).toEqual({});
    await fake.allReady();
    expect(fake.alive().map(runningOn).sort()).toEqual(['"b sync"', '"c sync"']);
  });

  it('leaves a call stopped to make room in good standing: it may make room in its turn', async () => {
    const { clock, fake, pool } = setup(2);
    const b = define(pool, 'b', 4_000);
    const stoppedFirst = [track(b.evaluate({}, never, 'pb')), track(define(pool, 'd', 4_000).evaluate({}, never, 'pd'))];
    await settle();
    await fake.allReady();
    track(define(pool, 'c', 4_000).evaluate({}, never, 'pc'));
    await clock.advance(1_100); // past c's patience (1 s): the call of b, which started first, makes room
    expect(failureOf(stoppedFirst[0]!.answer)).toMatch(/so that another controller's hook could run/);
    expect(stoppedFirst[1]).toEqual({});
    await fake.allReady();
    const retried = track(b.evaluate({}, never, 'pb')); // its sync is retried
    await settle();
    // Past b's patience, well before d's deadline (4.1 s): d, the longest-running, makes room for b.
    await clock.advance(1_500);
    await fake.allReady();
    expect(failureOf(stoppedFirst[1]!.answer)).toMatch(/so that another controller's hook could run/);
    expect(fake.alive().map(runningOn).sort()).toEqual(['"b sync"', '"c sync"']);
    expect(retried).toEqual({});
  });

  it('stops nothing for a waiting call of a controller that already holds a process', async () => {
    const { clock, fake, pool } = setup(2);
    track(define(pool, 'a', 30_000).evaluate({}, never, 'pa'));
    track(define(pool, 'h', 30_000).evaluate({}, never, 'ph'));
    await settle();
    await fake.allReady();
    const waiting = track(define(pool, 'h', 400, 'finalize').evaluate({}, never, 'ph'));
    await clock.advance(5_000);
    expect(fake.processes.filter((p) => p.killed)).toHaveLength(0);
    expect(waiting).toEqual({});
  });

  it('stops no call that has run for less than the waiting call’s patience', async () => {
    const { clock, fake, pool } = setup(1);
    track(define(pool, 'a', 30_000).evaluate({}, never, 'pa'));
    await settle();
    await fake.allReady();
    track(define(pool, 'h', 400).evaluate({}, never, 'ph'));
    await clock.advance(50);
    expect(fake.processes[0]!.killed).toBe(false);
    await clock.advance(200);
    expect(fake.processes[0]!.killed).toBe(true);
  });

  it('does not count a call stopped to make room as a strike against its parent', async () => {
    const { clock, fake, pool } = setup(1);
    const runaway = define(pool, 'a', 30_000);
    for (let round = 0; round < 3; round++) {
      const call = track(runaway.evaluate({}, never, 'pa'));
      await settle();
      await fake.allReady();
      const healthy = track(define(pool, `h${round}`, 400).evaluate({}, never, 'ph'));
      for (let i = 0; i < 10 && call.answer === undefined; i++) await clock.advance(50);
      expect(failureOf(call.answer)).toContain('stopped after');
      await fake.allReady();
      const process = fake.alive()[0]!;
      process.answer(process.calls()[0]!.call, {});
      await settle();
      expect(healthy.answer).toEqual({ response: {} });
    }
  });

  it('never gives one controller every process', async () => {
    const { fake, pool } = setup(3);
    for (const hook of ['sync', 'finalize', 'customize'] as const) track(define(pool, 'a', 30_000, hook).evaluate({}, never, 'pa'));
    await settle();
    await fake.allReady();
    expect(fake.alive().map(runningOn).filter(Boolean)).toHaveLength(2);
    track(define(pool, 'b', 500).evaluate({}, never, 'pb'));
    await settle();
    await fake.allReady();
    expect(fake.alive().map(runningOn)).toContain('"b sync"');
  });

  it('takes turns between controllers, not between expressions', async () => {
    const { fake, pool } = setup(1);
    const first = track(define(pool, 'a', 1_000).evaluate({}, never, 'pa'));
    await settle();
    await fake.allReady();
    track(define(pool, 'a', 1_000, 'finalize').evaluate({}, never, 'pa'));
    track(define(pool, 'b', 1_000).evaluate({}, never, 'pb'));
    await settle();
    const process = fake.processes[0]!;
    process.answer(process.calls()[0]!.call, {});
    await settle();
    expect(first.answer).toEqual({ response: {} });
    expect(runningOn(process)).toBe('"b sync"');
  });
});
