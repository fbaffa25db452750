import { describe, expect, it } from 'vitest';
import { parseSiblingRef, type SiblingRef } from '../api/index.ts';
import { siblingOrderProblems, type OrderedChild } from './sibling-order.ts';

function ref(text: string): SiblingRef {
  const parsed = parseSiblingRef(text);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

function configMap(name: string, dependsOn: string[], wave: number | undefined = 0): OrderedChild {
  return { object: { kind: 'ConfigMap', apiVersion: 'v1', name, line: 1, column: 1 }, wave, dependsOn: dependsOn.map(ref) };
}

describe('siblingOrderProblems', () => {
  it('finds nothing among children in order', () => {
    expect(siblingOrderProblems([configMap('a', []), configMap('b', ['ConfigMap/a'], 1), configMap('c', ['ConfigMap/a', 'ConfigMap/b'], 1)])).toEqual([]);
  });

  it('reports a dependency on a later wave at the child that names it', () => {
    const [problem] = siblingOrderProblems([configMap('a', [], 2), configMap('b', ['ConfigMap/a'], 1)]);
    expect(problem?.child.object.name).toBe('b');
    expect(problem?.message).toBe("loom.dev/depends-on: ConfigMap/a is in wave 2, after this child's wave 1, so loom would fail every sync that returns them");
  });

  it('does not match a reference to another group, or with a namespace', () => {
    expect(siblingOrderProblems([configMap('a', ['ConfigMap.example.com/a', 'ConfigMap/default/a'])])).toEqual([]);
  });

  it('reports each cycle once, and a chain of twenty thousand children without overflowing the stack', () => {
    const count = 20_000;
    const chain = Array.from({ length: count }, (_, i) => configMap(`c${i}`, [`ConfigMap/c${(i + 1) % count}`]));
    const problems = siblingOrderProblems(chain);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.child.object.name).toBe('c0');
    // Its message names the first children and the last, not all twenty thousand.
    expect(problems[0]?.message).toBe(`loom.dev/depends-on: a cycle: ${[0, 1, 2, 3, 4, 5, 6].map((i) => `ConfigMap/c${i}`).join(' → ')} → … 19992 more → ConfigMap/c19999 → ConfigMap/c0`);
  });

  it('reports two separate cycles', () => {
    const problems = siblingOrderProblems([configMap('a', ['ConfigMap/b']), configMap('b', ['ConfigMap/a']), configMap('c', ['ConfigMap/c'])]);
    expect(problems.map((p) => p.message)).toEqual([
      'loom.dev/depends-on: a cycle: ConfigMap/a → ConfigMap/b → ConfigMap/a',
      'loom.dev/depends-on: a cycle: ConfigMap/c → ConfigMap/c',
    ]);
  });
});
