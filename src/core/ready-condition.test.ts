import { describe, expect, it } from 'vitest';
import { ordersChildren, readyCondition, wantsReadyCondition, withReadyCondition, type ChildrenReport } from './ready-condition.ts';
import { StatusConditionsError } from './updated-condition.ts';

const ref = (name: string, kind = 'ConfigMap') => ({ apiVersion: 'v1', kind, namespace: 'ns', name });
const current = { status: 'Current' as const, message: 'Resource is current' };
const report = (over: Partial<ChildrenReport> = {}): ChildrenReport => ({
  ordered: true, children: [{ ref: ref('a'), readiness: current }, { ref: ref('b'), readiness: current }], held: [], failed: [], ...over,
});
const NOW = Date.UTC(2026, 10, 27, 6, 0, 0, 500);

describe('readyCondition', () => {
  it.each([
    { name: 'all ready', report: report(), want: { status: 'True', reason: 'ChildrenReady', message: '2 children are ready' } },
    {
      name: 'held children, named with what they wait for',
      report: report({ held: [{ ref: ref('web', 'Deployment'), deleting: false, waitsFor: [{ ref: ref('data', 'PersistentVolumeClaim'), why: 'InProgress: phase is Pending' }], more: 0 }] }),
      want: { status: 'False', reason: 'ChildrenHeld', message: 'Deployment ns/web waits for PersistentVolumeClaim ns/data (InProgress: phase is Pending)' },
    },
    {
      name: 'written but not ready',
      report: report({ children: [{ ref: ref('a'), readiness: current }, { ref: ref('j', 'Job'), readiness: { status: 'InProgress', message: 'Job in progress' } }] }),
      want: { status: 'False', reason: 'ChildrenNotReady', message: 'Job ns/j is InProgress: Job in progress' },
    },
    {
      name: 'a missing child is not ready',
      report: report({ children: [{ ref: ref('a'), readiness: { status: 'NotFound', message: '' } }] }),
      want: { status: 'False', reason: 'ChildrenNotReady', message: 'ConfigMap ns/a is NotFound' },
    },
    {
      name: 'failed writes win over holds, at most three named',
      report: report({ failed: ['w1', 'w2', 'w3', 'w4', 'w5'], held: [{ ref: ref('x'), deleting: false, waitsFor: [], more: 0 }] }),
      want: { status: 'False', reason: 'WriteFailed', message: 'w1; w2; w3; and 2 more' },
    },
    {
      name: 'an invalid order',
      report: report({ invalidOrder: ['dependsOn cycle: ConfigMap ns/a → ConfigMap ns/a'], failed: ['the order'] }),
      want: { status: 'False', reason: 'InvalidOrder', message: 'dependsOn cycle: ConfigMap ns/a → ConfigMap ns/a' },
    },
    { name: 'no children', report: report({ children: [] }), want: { status: 'True', reason: 'ChildrenReady', message: '0 children are ready' } },
  ])('$name', ({ report, want }) => {
    expect(readyCondition({ report, generation: 3, current: undefined, now: NOW }))
      .toEqual({ type: 'Ready', ...want, observedGeneration: 3, lastTransitionTime: '2026-11-27T06:00:00Z' });
  });

  it('keeps lastTransitionTime while the status stays, and moves it when it changes', () => {
    const before = { conditions: [{ type: 'Ready', status: 'False', reason: 'ChildrenHeld', message: 'old', lastTransitionTime: '2026-01-01T00:00:00Z' }] };
    expect(readyCondition({ report: report({ failed: ['x'] }), generation: 1, current: before, now: NOW }).lastTransitionTime).toBe('2026-01-01T00:00:00Z');
    expect(readyCondition({ report: report(), generation: 1, current: before, now: NOW }).lastTransitionTime).toBe('2026-11-27T06:00:00Z');
  });

  it('without a clock keeps the time the status has, and leaves a new one out', () => {
    const before = { conditions: [{ type: 'Ready', status: 'False', reason: 'ChildrenHeld', message: 'old', lastTransitionTime: '2026-01-01T00:00:00Z' }] };
    expect(readyCondition({ report: report({ failed: ['x'] }), generation: 1, current: before }).lastTransitionTime).toBe('2026-01-01T00:00:00Z');
    expect(readyCondition({ report: report(), generation: 1, current: before })).toEqual({
      type: 'Ready', status: 'True', reason: 'ChildrenReady', message: '2 children are ready', observedGeneration: 1,
    });
  });

  it('leaves observedGeneration out for a parent without a generation', () => {
    expect(readyCondition({ report: report(), generation: undefined, current: undefined, now: NOW })).not.toHaveProperty('observedGeneration');
  });
});

describe('withReadyCondition', () => {
  const input = { report: report(), generation: 2, current: undefined, now: NOW };
  const written = { type: 'Ready', status: 'True', reason: 'ChildrenReady', message: '2 children are ready', observedGeneration: 2, lastTransitionTime: '2026-11-27T06:00:00Z' };

  it("replaces the hook's Ready and keeps its other conditions and fields", () => {
    const hook = { phase: 'x', conditions: [{ type: 'Synced', status: 'True' }, { type: 'Ready', status: 'True', reason: 'Hook' }] };
    expect(withReadyCondition(hook, input)).toEqual({ phase: 'x', conditions: [{ type: 'Synced', status: 'True' }, written] });
  });

  it('adds a list when the hook wrote none', () => {
    expect(withReadyCondition({}, input)).toEqual({ conditions: [written] });
  });

  it('refuses a conditions field that is not a list', () => {
    expect(() => withReadyCondition({ conditions: 'no' }, input)).toThrow(StatusConditionsError);
  });
});

describe('wantsReadyCondition', () => {
  it.each([
    { name: 'no report (children not managed)', report: undefined, readyCondition: true, want: false },
    { name: 'no order, not asked', report: report({ ordered: false }), readyCondition: undefined, want: false },
    { name: 'no order, asked by spec.readyCondition', report: report({ ordered: false }), readyCondition: true, want: true },
    { name: 'children in order', report: report(), readyCondition: false, want: true },
  ])('$name: $want', ({ report, readyCondition, want }) => {
    expect(wantsReadyCondition(report, readyCondition)).toBe(want);
  });
});

describe('ordersChildren', () => {
  it.each([
    { name: 'a child type with a wave, though no child of it is desired', rules: [{}, { wave: 1 }], ordered: false, want: true },
    { name: 'the desired children in order', rules: [{}], ordered: true, want: true },
    { name: 'neither (going children in order do not count)', rules: [{ readyWhen: 'true' }], ordered: false, want: false },
  ])('$name: $want', ({ rules, ordered, want }) => {
    expect(ordersChildren(rules, { ordered })).toBe(want);
  });
});
