import { describe, expect, it } from 'vitest';
import { CYCLE_SHOWN, dependencyCycles, describeCycle } from './dependency-cycles.ts';

describe('dependencyCycles', () => {
  it.each([
    { name: 'none in a diamond', graph: [[1, 2], [3], [3], []], want: [] },
    { name: 'a node on itself', graph: [[0]], want: [[0]] },
    { name: 'two separate cycles, each once', graph: [[1], [0], [3], [2]], want: [[0, 1], [2, 3]] },
    { name: 'behind a tail', graph: [[1], [2], [1]], want: [[1, 2]] },
  ])('$name', ({ graph, want }) => {
    expect(dependencyCycles(graph)).toEqual(want);
  });

  it('stops at the limit, and walks a chain of 100,000 without overflowing the stack', () => {
    const count = 100_000;
    const chain = Array.from({ length: count }, (_, i) => [(i + 1) % count]);
    const [cycle, ...rest] = dependencyCycles(chain, 1);
    expect(cycle).toHaveLength(count);
    expect(rest).toEqual([]);
    expect(dependencyCycles([[0], [1]], 1)).toEqual([[0]]);
  });
});

describe('describeCycle', () => {
  it('names a short cycle whole, back to its first member', () => {
    expect(describeCycle(['a', 'b'])).toBe('a → b → a');
  });

  it(`cuts a cycle longer than ${CYCLE_SHOWN} in its middle`, () => {
    const members = Array.from({ length: 20 }, (_, i) => `c${i}`);
    expect(describeCycle(members)).toBe('c0 → c1 → c2 → c3 → c4 → c5 → c6 → … 12 more → c19 → c0');
  });
});
