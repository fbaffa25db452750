import { describe, expect, it } from 'vitest';
import { READY_WHEN_ANNOTATION, type KubeObject } from '../api/index.ts';
import { JsonataCompileError, type ReadyWhen, type ReadyWhenVerdict } from '../hooks/index.ts';
import { readyWhenJudge } from './ready-when-judge.ts';

const never = new AbortController().signal;

/**
 * A stand-in for a compiled expression: `verdict` decides from the object, and every evaluation and
 * release is counted, so a test sees what was evaluated again and what was let go.
 */
function fakeRule(expression: string, verdict: (obj: KubeObject) => ReadyWhenVerdict) {
  const counts = { judged: 0, released: 0 };
  const rule: ReadyWhen = {
    expression,
    source: 'readyWhen',
    judge: (obj) => {
      counts.judged++;
      return Promise.resolve(verdict(obj));
    },
    release: () => void counts.released++,
  };
  return { rule, counts };
}

const phaseReady = (obj: KubeObject): ReadyWhenVerdict => {
  const ready = (obj.status as { phase?: string } | undefined)?.phase === 'Ready';
  return { readiness: ready ? { status: 'Current', message: 'readyWhen is true' } : { status: 'InProgress', message: 'readyWhen is false' }, lasting: true };
};

function database(name: string, phase: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { apiVersion: 'db.example.com/v1', kind: 'Database', metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '1', ...extra }, status: { phase } };
}

const configMap = (name: string, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '7', ...(annotations ? { annotations } : {}) },
});

describe('readyWhenJudge', () => {
  it('judges a type with readyWhen by it, and every other object by kstatus', async () => {
    const type = fakeRule('status.phase = "Ready"', phaseReady);
    const judge = readyWhenJudge({ types: [{ apiVersion: 'db.example.com/v2', kind: 'Database', readyWhen: type.rule }], compile: () => { throw new Error('no annotation here'); } });
    const behind: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', generation: 2 }, status: { observedGeneration: 1 } };
    await expect(judge.judge([database('a', 'Ready'), database('b', 'Creating'), configMap('c'), behind], never)).resolves.toEqual([
      { status: 'Current', message: 'readyWhen is true' },
      { status: 'InProgress', message: 'readyWhen is false' },
      { status: 'Current', message: 'ConfigMap: exists' },
      { status: 'InProgress', message: 'Deployment: generation 2 not observed yet (status.observedGeneration is 1)' },
    ]);
  });

  it('lets an object\'s annotation win over its type\'s rule, and kstatus judge one being deleted', async () => {
    const type = fakeRule('status.phase = "Ready"', phaseReady);
    const annotated = fakeRule('$exists(status.phase)', () => ({ readiness: { status: 'Current', message: 'annotation is true' }, lasting: true }));
    const judge = readyWhenJudge({ types: [{ apiVersion: 'db.example.com/v1', kind: 'Database', readyWhen: type.rule }], compile: () => annotated.rule });
    const own = database('own', 'Creating', { annotations: { [READY_WHEN_ANNOTATION]: '$exists(status.phase)' } });
    const going = database('going', 'Ready', { deletionTimestamp: '2026-11-27T06:00:00Z' });
    await expect(judge.judge([own, going], never)).resolves.toEqual([
      { status: 'Current', message: 'annotation is true' },
      { status: 'Terminating', message: 'Database: being deleted' },
    ]);
    expect(type.counts.judged).toBe(0);
  });

  it('remembers a lasting verdict per uid, resourceVersion and expression, and judges a changed object again', async () => {
    const type = fakeRule('status.phase = "Ready"', phaseReady);
    const judge = readyWhenJudge({ types: [{ apiVersion: 'db.example.com/v1', kind: 'Database', readyWhen: type.rule }], compile: () => type.rule });
    await judge.judge([database('a', 'Creating')], never);
    await judge.judge([database('a', 'Creating')], never);
    expect(type.counts.judged).toBe(1);
    await expect(judge.judge([database('a', 'Ready', { resourceVersion: '2' })], never)).resolves.toEqual([{ status: 'Current', message: 'readyWhen is true' }]);
    expect(type.counts.judged).toBe(2);
    // Without a uid or resourceVersion (a file given to loom render) there is nothing to remember by.
    await judge.judge([database('b', 'Ready', { uid: '' })], never);
    await judge.judge([database('b', 'Ready', { uid: '' })], never);
    expect(type.counts.judged).toBe(4);
  });

  it('judges again a verdict that does not last (a spent budget, a crash)', async () => {
    const flaky = fakeRule('slow', () => ({ readiness: { status: 'Unknown', message: 'readyWhen: JSONata evaluation timed out after 1000 ms' }, lasting: false }));
    const judge = readyWhenJudge({ types: [{ apiVersion: 'db.example.com/v1', kind: 'Database', readyWhen: flaky.rule }], compile: () => flaky.rule });
    await expect(judge.judge([database('a', 'Ready')], never)).resolves.toEqual([{ status: 'Unknown', message: 'readyWhen: JSONata evaluation timed out after 1000 ms' }]);
    await judge.judge([database('a', 'Ready')], never);
    expect(flaky.counts.judged).toBe(2);
  });

  it('bounds the verdicts it remembers', async () => {
    const type = fakeRule('status.phase = "Ready"', phaseReady);
    const judge = readyWhenJudge({ types: [{ apiVersion: 'db.example.com/v1', kind: 'Database', readyWhen: type.rule }], compile: () => type.rule, maxVerdicts: 2 });
    await judge.judge([database('a', 'Ready'), database('b', 'Ready'), database('c', 'Ready')], never);
    await judge.judge([database('c', 'Ready')], never);
    expect(type.counts.judged).toBe(3);
    await judge.judge([database('a', 'Ready')], never);
    expect(type.counts.judged).toBe(4);
  });

  it('compiles an annotation once, keeps a bounded few, and releases those it drops', async () => {
    const compiled: ReturnType<typeof fakeRule>[] = [];
    const judge = readyWhenJudge({
      types: [], maxExpressions: 2,
      compile: (expression) => {
        const made = fakeRule(expression, () => ({ readiness: { status: 'Current', message: expression }, lasting: true }));
        compiled.push(made);
        return made.rule;
      },
    });
    const annotated = (name: string, expression: string) => configMap(name, { [READY_WHEN_ANNOTATION]: expression });
    await judge.judge([annotated('a', 'true'), annotated('b', 'true'), annotated('c', '1 = 1')], never);
    expect(compiled.map((c) => c.rule.expression)).toEqual(['true', '1 = 1']);
    await judge.judge([annotated('d', '2 = 2')], never);
    expect(compiled.map((c) => c.counts.released)).toEqual([1, 0, 0]);
    judge.release();
    judge.release();
    expect(compiled.map((c) => c.counts.released)).toEqual([1, 1, 1]);
  });

  it('compiles no annotation whose verdict on the object it remembers', async () => {
    let compiles = 0;
    const judge = readyWhenJudge({
      types: [], maxExpressions: 1,
      compile: (expression) => {
        compiles++;
        return fakeRule(expression, () => ({ readiness: { status: 'Current', message: expression }, lasting: true })).rule;
      },
    });
    const a = configMap('a', { [READY_WHEN_ANNOTATION]: 'true' });
    const b = configMap('b', { [READY_WHEN_ANNOTATION]: '1 = 1' });
    await judge.judge([a], never);
    await judge.judge([b], never);
    // `true` was dropped to make room for `1 = 1`, but a's verdict is remembered: nothing to compile.
    await expect(judge.judge([a, b], never)).resolves.toEqual([{ status: 'Current', message: 'true' }, { status: 'Current', message: '1 = 1' }]);
    expect(compiles).toBe(2);
  });

  it('releases no annotation expression while a judgement uses it, and makes the excess Unknown', async () => {
    let answer = (): void => undefined;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const compiled: Array<ReturnType<typeof fakeRule>> = [];
    const judge = readyWhenJudge({
      types: [], maxExpressions: 1,
      compile: (expression) => {
        const made = fakeRule(expression, () => ({ readiness: { status: 'Current', message: expression }, lasting: true }));
        compiled.push(made);
        // `true` answers only when the test says so: a judgement still using it.
        return expression === 'true' ? { ...made.rule, judge: async (obj, signal) => (await answered, made.rule.judge(obj, signal)) } : made.rule;
      },
    });
    const slow = judge.judge([configMap('a', { [READY_WHEN_ANNOTATION]: 'true' })], never);
    await expect(judge.judge([configMap('b', { [READY_WHEN_ANNOTATION]: '1 = 1' })], never)).resolves.toEqual([{
      status: 'Unknown',
      message: `annotation ${READY_WHEN_ANNOTATION}: not evaluated: this controller's children use more than 1 distinct ${READY_WHEN_ANNOTATION} expressions at once; give these children fewer distinct expressions, or their type a readyWhen`,
    }]);
    expect(compiled.map((c) => c.counts.released)).toEqual([0]);
    answer();
    await expect(slow).resolves.toEqual([{ status: 'Current', message: 'true' }]);
    // Once nothing uses it, the expression makes room for another.
    await expect(judge.judge([configMap('b', { [READY_WHEN_ANNOTATION]: '1 = 1' })], never)).resolves.toEqual([{ status: 'Current', message: '1 = 1' }]);
    expect(compiled.map((c) => [c.rule.expression, c.counts.released])).toEqual([['true', 1], ['1 = 1', 0]]);
  });

  it('makes only the objects of an annotation that does not compile Unknown, saying why', async () => {
    const judge = readyWhenJudge({
      types: [],
      compile: (expression) => {
        throw new JsonataCompileError(`annotation ${READY_WHEN_ANNOTATION}: JSONata syntax error at line 1, column 9: "${expression}"`, { position: 8, line: 1, column: 9, code: undefined });
      },
    });
    await expect(judge.judge([configMap('bad', { [READY_WHEN_ANNOTATION]: 'status =' }), configMap('good')], never)).resolves.toEqual([
      { status: 'Unknown', message: `annotation ${READY_WHEN_ANNOTATION}: JSONata syntax error at line 1, column 9: "status ="` },
      { status: 'Current', message: 'ConfigMap: exists' },
    ]);
  });

  it('releases the types\' expressions with it', () => {
    const type = fakeRule('true', phaseReady);
    readyWhenJudge({ types: [{ apiVersion: 'db.example.com/v1', kind: 'Database', readyWhen: type.rule }], compile: () => type.rule }).release();
    expect(type.counts.released).toBe(1);
  });
});
