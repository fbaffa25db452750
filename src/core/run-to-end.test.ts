/**
 * The sliced forms of the core's loops over children pause after each slice and give exactly what the
 * plain forms give.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/object.ts';
import { planChildren, planChildrenInSlices, type PlanChildrenInput } from './child-plan.ts';
import { normaliseDesiredChildren, normaliseDesiredChildrenInSlices, type DesiredChildrenOptions } from './desired-children.ts';

const configMap = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data: { name } });
const desired = Array.from({ length: 5 }, (_, i) => configMap(`cm-${i}`));

/** The number of pauses, and the result. */
function drive<R>(steps: Generator<void, R>): { pauses: number; result: R } {
  for (let pauses = 0; ; pauses++) {
    const step = steps.next();
    if (step.done) return { pauses, result: step.value };
  }
}

describe('planChildrenInSlices', () => {
  const input: PlanChildrenInput = {
    desired, observed: [configMap('cm-0'), configMap('gone')], methodFor: () => 'InPlace', applyStrategy: 'dynamic-apply', fieldManager: 'loom', lastApplied: () => undefined,
  };

  it('pauses after every slice and plans what planChildren plans', () => {
    const { pauses, result } = drive(planChildrenInSlices(input, 2));
    expect(pauses).toBe(2);
    expect(result).toEqual(planChildren(input));
    expect(result.map((d) => `${d.action} ${d.child.name}`)).toEqual(['delete gone', 'update cm-0', 'create cm-1', 'create cm-2', 'create cm-3', 'create cm-4']);
  });
});

describe('normaliseDesiredChildrenInSlices', () => {
  const options: DesiredChildrenOptions = {
    parent: { apiVersion: 'x/v1', kind: 'App', metadata: { name: 'app', namespace: 'ns', uid: 'p-1' } },
    children: desired, declaredTypes: [{ apiVersion: 'v1', kind: 'ConfigMap', namespaced: true }], generateSelector: false,
  };

  it('pauses after every slice and gives what normaliseDesiredChildren gives', () => {
    const { pauses, result } = drive(normaliseDesiredChildrenInSlices(options, 2));
    expect(pauses).toBe(2);
    expect(result).toEqual(normaliseDesiredChildren(options));
    expect(result.ok).toBe(true);
  });

  it('finds a duplicate across slices, naming both positions', () => {
    const { result } = drive(normaliseDesiredChildrenInSlices({ ...options, children: [...desired, configMap('cm-0')] }, 2));
    expect(result).toEqual({ ok: false, problems: ['desired child ConfigMap ns/cm-0 appears more than once (children[0] and children[5])'] });
  });
});
