import { describe, expect, it } from 'vitest';
import { READY_WHEN_ANNOTATION, type KubeObject } from '../api/index.ts';
import { manualClock } from '../engine/manual-clock.test-support.ts';
import { JsonataCompileError, type EvaluatorPool } from '../hooks/index.ts';
import { controllerJudge } from './controller-judge.ts';

/** A pool that answers every call with `value` and records what was defined and forgotten. */
function fakePool(value: unknown) {
  const defined: { expression: string; label: string | undefined; timeoutMs: number; owner: string | undefined }[] = [];
  let forgotten = 0;
  const pool: EvaluatorPool = {
    define: (definition, owner) => {
      defined.push({ expression: definition.expression, label: definition.label, timeoutMs: definition.timeoutMs, owner });
      return { evaluate: () => Promise.resolve({ response: { value } }), forget: () => void forgotten++ };
    },
    close: () => undefined,
  };
  return { pool, defined, forgotten: () => forgotten };
}

const clock = manualClock();
const never = new AbortController().signal;
const database: KubeObject = { apiVersion: 'db.example.com/v1', kind: 'Database', metadata: { name: 'db', uid: 'u1', resourceVersion: '3' } };

describe('controllerJudge', () => {
  it('compiles each type\'s readyWhen once, on the controller\'s share, with a JSONata hook\'s default budget', async () => {
    const { pool, defined } = fakePool(false);
    const judge = controllerJudge({
      evaluators: pool, clock, owner: 'CompositeController/db',
      types: [
        { apiVersion: 'db.example.com/v1', kind: 'Database', readyWhen: 'status.phase = "Ready"', field: 'spec.childResources[0].readyWhen' },
        { apiVersion: 'v1', kind: 'ConfigMap', field: 'spec.childResources[1].readyWhen' },
      ],
    });
    expect(defined).toEqual([{ expression: 'status.phase = "Ready"', label: 'spec.childResources[0].readyWhen', timeoutMs: 1_000, owner: 'CompositeController/db' }]);
    await expect(judge.judge([database], never)).resolves.toEqual([{ status: 'InProgress', message: 'spec.childResources[0].readyWhen is false' }]);
  });

  it('refuses a type\'s readyWhen that does not compile, naming its field, and keeps nothing defined', () => {
    const { pool, forgotten } = fakePool(true);
    const start = () => controllerJudge({
      evaluators: pool, clock, owner: 'CompositeController/db',
      types: [
        { apiVersion: 'v1', kind: 'Secret', readyWhen: 'true', field: 'spec.childResources[0].readyWhen' },
        { apiVersion: 'db.example.com/v1', kind: 'Database', readyWhen: 'status.phase = ', field: 'spec.childResources[1].readyWhen' },
      ],
    });
    expect(start).toThrow(JsonataCompileError);
    expect(start).toThrow(/^spec\.childResources\[1\]\.readyWhen: JSONata syntax error at line 1, column/);
    // Two starts, each defined the Secret's expression before it failed, and let go of it.
    expect(forgotten()).toBe(2);
  });

  it('compiles an annotation when it first sees it, named as the annotation', async () => {
    const { pool, defined } = fakePool(true);
    const judge = controllerJudge({ evaluators: pool, clock, owner: 'DecoratorController/d', types: [] });
    const annotated = { ...database, metadata: { ...database.metadata, annotations: { [READY_WHEN_ANNOTATION]: '$exists(status)' } } };
    await expect(judge.judge([annotated], never)).resolves.toEqual([{ status: 'Current', message: `annotation ${READY_WHEN_ANNOTATION} is true` }]);
    expect(defined.map((d) => d.label)).toEqual([`annotation ${READY_WHEN_ANNOTATION}`]);
  });
});
