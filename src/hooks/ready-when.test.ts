/**
 * `readyWhen` expressions against real evaluator processes: what each kind of result means, and that a
 * hostile expression (a runaway, a huge result, an error) makes its object `Unknown` with the reason,
 * bounded as a hook is, and the next expression is still judged.
 *
 * As in `isolated-jsonata-runner.test.ts`, the pool's time moves only when a test says so, and a test
 * about the time budget drives it until the call settles, so no outcome depends on the machine's speed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../engine/clock.ts';
import { manualClock } from '../engine/manual-clock.test-support.ts';
import type { KubeObject } from '../api/object.ts';
import { createEvaluatorPool } from './evaluator-pool.ts';
import { JsonataCompileError } from './jsonata-errors.ts';
import { compileReadyWhen, type ReadyWhenVerdict } from './ready-when.ts';

const GRACE_MS = 100;
/** A budget no ordinary expression here comes near, however busy the machine. */
const UNBOUNDED_MS = 3_600_000;
const time = manualClock();
const pool = createEvaluatorPool({ entry: new URL('../jsonata-evaluator.ts', import.meta.url), processes: 2, heapMiB: 128, graceMs: GRACE_MS, clock: time });
afterAll(() => pool.close());
const never = new AbortController().signal;

const SOURCE = 'spec.childResources[0].readyWhen';

function readyWhen(expression: string, timeoutMs = UNBOUNDED_MS) {
  return compileReadyWhen({ expression, source: SOURCE, timeoutMs, clock: time }, pool, 'CompositeController/db');
}

const database = (status: Record<string, unknown>): KubeObject => ({
  apiVersion: 'db.example.com/v1', kind: 'Database', metadata: { name: 'db', namespace: 'default', uid: 'uid-db', generation: 1 }, status,
});

/** Moves the pool's time past the budget and grace until `verdict` settles (its deadline starts once a process runs it). */
async function runOut(verdict: Promise<ReadyWhenVerdict>, timeoutMs: number): Promise<ReadyWhenVerdict> {
  let settled = false;
  void verdict.finally(() => (settled = true));
  while (!settled) {
    await time.advance(timeoutMs + 2 * GRACE_MS);
    await systemClock.sleep(10);
  }
  return verdict;
}

describe('readyWhen: what the result means', () => {
  const rule = readyWhen('status.phase = "Ready" and $exists(status.endpoint)');

  it('is Current when the expression over the object is true', async () => {
    await expect(rule.judge(database({ phase: 'Ready', endpoint: 'db:5432' }), never)).resolves.toEqual({
      readiness: { status: 'Current', message: `${SOURCE} is true` }, lasting: true,
    });
  });

  it('is InProgress when it is false', async () => {
    await expect(rule.judge(database({ phase: 'Ready' }), never)).resolves.toEqual({
      readiness: { status: 'InProgress', message: `${SOURCE} is false` }, lasting: true,
    });
  });

  it.each<[string, string, RegExp]>([
    ['a string', 'status.phase', /gave "Creating" \(a string\), not true or false$/],
    ['no value', 'status.missing', /gave no value, not true or false$/],
    ['a number', '1', /gave 1 \(a number\), not true or false$/],
    ['null', 'null', /gave null, not true or false$/],
  ])('is Unknown for %s, saying what it gave', async (_name, expression, message) => {
    const { readiness, lasting } = await readyWhen(expression).judge(database({ phase: 'Creating' }), never);
    expect(readiness.status).toBe('Unknown');
    expect(readiness.message).toMatch(message);
    expect(readiness.message.startsWith(SOURCE)).toBe(true);
    expect(lasting).toBe(true);
  });

  it('may use $ready and $readiness on the object', async () => {
    const rule = readyWhen('$ready($) and $readiness($).status = "Current" and status.phase = "Ready"');
    await expect(rule.judge(database({ phase: 'Ready' }), never)).resolves.toMatchObject({ readiness: { status: 'Current' } });
    const behind = { ...database({ phase: 'Ready', observedGeneration: 1 }), metadata: { ...database({}).metadata, generation: 2 } };
    await expect(rule.judge(behind, never)).resolves.toMatchObject({ readiness: { status: 'InProgress' } });
  });

  it.each([
    ['$millis()', '$millis() > 0', false],
    ['$now()', '$now() > "2000"', false],
    ['$random()', '$random() < 2', false],
    ['no clock ($fromMillis is pure)', '$fromMillis(0) = "1970-01-01T00:00:00.000Z"', true],
  ])('says whether a verdict of an expression using %s lasts', async (_name, expression, lasting) => {
    // Judged again at the next sync, a verdict that depends on the time must not be remembered.
    await expect(readyWhen(expression).judge(database({}), never)).resolves.toEqual({ readiness: { status: 'Current', message: `${SOURCE} is true` }, lasting });
  });

  it('throws a compile error naming where the expression is written', () => {
    expect(() => readyWhen('status.phase = ')).toThrow(JsonataCompileError);
    expect(() => readyWhen('status.phase = ')).toThrow(new RegExp(`^${SOURCE.replace(/[.[\]]/g, '\\$&')}: JSONata syntax error at line 1`));
  });
});

describe('readyWhen: a bad or hostile expression makes its object Unknown, bounded', () => {
  it('says what error the expression raised, which lasts as long as the object', async () => {
    const verdict = await readyWhen('$error("no endpoint yet")').judge(database({}), never);
    expect(verdict).toEqual({ readiness: { status: 'Unknown', message: `${SOURCE}: JSONata error at line 1, column 1: no endpoint yet` }, lasting: true });
  });

  it('ends an infinite loop at the hook budget, and judges it again next time', async () => {
    const verdict = await runOut(readyWhen('($f := function($n) { $f($n + 1) }; $f(0))', 200).judge(database({}), never), 200);
    expect(verdict.readiness.status).toBe('Unknown');
    expect(verdict.readiness.message).toMatch(new RegExp(`^${SOURCE.replace(/[.[\]]/g, '\\$&')}: JSONata evaluation (timed out after 200 ms|exceeded the maximum depth)`));
    expect(verdict.lasting).toBe(false);
  }, 60_000);

  it('refuses a huge result (past the response limit or the heap), and the next expression is judged', async () => {
    const verdict = await readyWhen('$pad("", 40000000, "x")').judge(database({}), never);
    expect(verdict.readiness.status).toBe('Unknown');
    expect(verdict.readiness.message).toMatch(/characters of JSON|memory limit|larger than JavaScript allows/);
    await expect(readyWhen('true').judge(database({}), never)).resolves.toMatchObject({ readiness: { status: 'Current' } });
  }, 60_000);

  it('gives the same verdict each time while the expression rests after ending its process', async () => {
    // A verdict that changed with the clock would change the parent's Ready condition at every sync.
    const rule = readyWhen('{"n": $count($split($pad("a", 150000000), ""))}');
    const object = database({});
    await rule.judge(object, never);
    await rule.judge(object, never);
    await time.advance(1_000);
    await rule.judge(object, never);
    const first = await rule.judge(object, never);
    await time.advance(1_500);
    const second = await rule.judge(object, never);
    expect(first.readiness.status).toBe('Unknown');
    expect(first.readiness.message).toMatch(/rests before it is evaluated again\)$/);
    expect(second).toEqual(first);
  }, 60_000);

  it('is Unknown, not a rejection, once released', async () => {
    const rule = readyWhen('true');
    rule.release();
    const verdict = await rule.judge(database({}), never);
    expect(verdict.readiness).toEqual({ status: 'Unknown', message: `${SOURCE}: evaluation did not run: ${SOURCE} is no longer in use` });
    expect(verdict.lasting).toBe(false);
  });
});
