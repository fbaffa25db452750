import { describe, expect, it } from 'vitest';
import { engineErrorOf, RetryAfterError, TerminalError } from './errors.ts';

class HookError extends Error {
  override readonly name = 'HookError';
}

describe('engine errors', () => {
  it('carry their cause and name', () => {
    const cause = new Error('HTTP 422');
    const terminal = new TerminalError('sync hook for default/web rejected the parent', { cause });
    const retry = new RetryAfterError('sync hook for default/web: 429', { retryAfterMs: 2_000, cause });
    expect([terminal.name, terminal.cause, terminal.message]).toEqual(['TerminalError', cause, 'sync hook for default/web rejected the parent']);
    expect([retry.name, retry.cause, retry.retryAfterMs]).toEqual(['RetryAfterError', cause, 2_000]);
  });

  it.each([-5, Number.NaN, 0])('treat a retry delay of %s as "now"', (retryAfterMs) => {
    expect(new RetryAfterError('x', { retryAfterMs }).retryAfterMs).toBe(0);
  });

  it('are found directly or through a chain of causes', () => {
    const retry = new RetryAfterError('429', { retryAfterMs: 1 });
    const terminal = new TerminalError('bad spec');
    expect(engineErrorOf(retry)).toBe(retry);
    expect(engineErrorOf(new HookError('sync hook failed', { cause: new Error('wrapped', { cause: terminal }) }))).toBe(terminal);
    expect(engineErrorOf(new HookError('outer', { cause: retry }))).toBe(retry);
  });

  it.each([
    ['a plain error', new Error('boom')],
    ['a non-error value', 'boom'],
    ['a non-error cause', new Error('boom', { cause: { name: 'TerminalError' } })],
    ['undefined', undefined],
  ])('are not found in %s', (_, error) => {
    expect(engineErrorOf(error)).toBeUndefined();
  });

  it('stop at a cyclic cause chain', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(engineErrorOf(a)).toBeUndefined();
  });
});
