import * as v8 from 'node:v8';
import { describe, expect, it, vi } from 'vitest';
import { compileJsonataHook } from './jsonata-runner.ts';

// Spy on V8 flag changes, passing them through, so the fallback is both checked and in effect.
vi.mock('node:v8', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:v8')>();
  return { ...original, setFlagsFromString: vi.fn(original.setFlagsFromString) };
});

const FLAG = '--enable-experimental-regexp-engine-on-excessive-backtracks';

function compile(expression: string) {
  return compileJsonataHook({ expression, hook: 'sync', timeoutMs: 1_000, clock: { now: () => 0 } });
}

describe('JSONata runner: regular expressions', () => {
  it('lets V8 fall back to its linear engine before any expression is compiled', () => {
    const setFlags = vi.mocked(v8.setFlagsFromString);
    setFlags.mockClear();
    compile('{"ok": $contains("a", /a/)}');
    expect(setFlags).toHaveBeenCalledWith(FLAG);
  });

  it('so a catastrophically backtracking match ends', async () => {
    // A regex literal runs as one native call the time budget cannot interrupt. With backtracking
    // alone this match takes about half a minute (doubling with each extra "a"); with the fallback,
    // well under a millisecond.
    const runner = compile('{"m": $contains(s, /^(a+)+$/), "n": $match(s, /(a|aa)+!/).match}');
    await expect(runner.call({ s: `${'a'.repeat(30)}!` }, new AbortController().signal)).resolves.toEqual({ m: false, n: `${'a'.repeat(30)}!` });
  });
});
