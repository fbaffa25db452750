import { describe, expect, it } from 'vitest';
import { boundedJoin, boundedStack, boundedText, MAX_MESSAGE_CHARS } from './bounded-text.ts';

describe('boundedText', () => {
  it('keeps a message within the limit as it is', () => {
    expect(boundedText('boom')).toBe('boom');
    expect(boundedText('x'.repeat(MAX_MESSAGE_CHARS))).toBe('x'.repeat(MAX_MESSAGE_CHARS));
  });

  it('keeps the head of a longer one and says how much was cut, within the limit', () => {
    const cut = boundedText(`start ${'x'.repeat(100_000)}`, 100);
    expect(cut.length).toBeLessThanOrEqual(100);
    expect(cut).toMatch(/^start x+… \(\d+ more characters\)$/);
    const head = cut.slice(0, cut.indexOf('…'));
    expect(Number(/\((\d+) more/.exec(cut)![1]) + head.length).toBe(100_006);
  });

  it('uses the default limit', () => {
    expect(boundedText('y'.repeat(10 * MAX_MESSAGE_CHARS)).length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
  });

  it('never cuts a surrogate pair in half', () => {
    const text = '😀'.repeat(100);
    for (const max of [64, 65, 66, 67]) {
      const cut = boundedText(text, max);
      expect(cut.length).toBeLessThanOrEqual(max);
      expect(cut.isWellFormed()).toBe(true);
    }
  });

  it('joins parts within the limit as join does', () => {
    expect(boundedJoin(['sync failed', 'HTTP 500'], ': ')).toBe('sync failed: HTTP 500');
    expect(boundedJoin([], ': ')).toBe('');
  });

  it('joins huge parts into one head and one note counting everything cut', () => {
    const huge = 'x'.repeat(1_000_000);
    const joined = boundedJoin([`outer ${huge}`, `inner ${huge}`], ': ', 100);
    expect(joined.length).toBeLessThanOrEqual(100);
    expect(joined).toMatch(/^outer x+… \(\d+ more characters\)$/);
    const head = joined.slice(0, joined.indexOf('…'));
    expect(Number(/\((\d+) more/.exec(joined)![1]) + head.length).toBe(2_000_014);
    expect(boundedJoin(['short', huge], ': ', 100)).toMatch(/^short: x+… \(\d+ more characters\)$/);
  });

  it('cuts the message in a stack, keeping its frames', () => {
    const err = new TypeError(`bad ${'x'.repeat(1_000_000)}`);
    const stack = boundedStack(err);
    expect(stack.length).toBeLessThanOrEqual(2 * MAX_MESSAGE_CHARS + 'TypeError: '.length);
    expect(stack).toMatch(/^TypeError: bad x+… \(\d+ more characters\)\n\s+at /);
    const short = new RangeError('short');
    expect(boundedStack(short)).toBe(short.stack);
  });
});
