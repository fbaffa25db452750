import { describe, expect, it } from 'vitest';
import { createSkippedKeys } from './skipped-keys.ts';

describe('skipped keys', () => {
  it('keeps each key once per breaker and hands them over once', () => {
    const skipped = createSkippedKeys<string>(10, (k) => k);
    skipped.add('http://a/sync', 'ns/one');
    skipped.add('http://a/sync', 'ns/two');
    skipped.add('http://a/sync', 'ns/one');
    skipped.add('http://b/sync', 'ns/three');
    expect(skipped.size()).toBe(3);
    expect(skipped.take('http://a/sync')).toEqual({ keys: ['ns/one', 'ns/two'], all: false });
    expect(skipped.take('http://a/sync')).toEqual({ keys: [], all: false });
    expect(skipped.size()).toBe(1);
    expect(skipped.take('http://b/sync')).toEqual({ keys: ['ns/three'], all: false });
  });

  it('tells keys apart by id, not identity', () => {
    const skipped = createSkippedKeys<{ name: string }>(10, (k) => k.name);
    skipped.add('e', { name: 'x' });
    skipped.add('e', { name: 'x' });
    expect(skipped.take('e').keys).toEqual([{ name: 'x' }]);
  });

  it('past its bound, marks the breaker overflowed so that every key is queued, and holds no more', () => {
    const skipped = createSkippedKeys<string>(2, (k) => k);
    skipped.add('a', 'k1');
    skipped.add('b', 'k2');
    skipped.add('a', 'k3');
    skipped.add('a', 'k4');
    expect(skipped.size()).toBe(2);
    expect(skipped.take('a')).toEqual({ keys: ['k1'], all: true });
    expect(skipped.take('b')).toEqual({ keys: ['k2'], all: false });
    // Taken, the overflow is over: the next keys are kept again.
    skipped.add('a', 'k5');
    expect(skipped.take('a')).toEqual({ keys: ['k5'], all: false });
  });

  it('shows what a breaker skipped without forgetting it, and tells a key added again', () => {
    const skipped = createSkippedKeys<string>(1, (k) => k);
    expect(skipped.add('a', 'k1')).toBe(true);
    expect(skipped.add('a', 'k1')).toBe(false);
    expect(skipped.add('a', 'k2')).toBe(true);
    expect(skipped.peek('a')).toEqual({ keys: ['k1'], all: true });
    expect(skipped.peek('b')).toEqual({ keys: [], all: false });
    expect(skipped.take('a')).toEqual({ keys: ['k1'], all: true });
  });
});
