import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_CHARS } from '../api/index.ts';
import { formatError } from './format-error.ts';

describe('formatError', () => {
  it('prints the whole cause chain, one line each', () => {
    const root = new Error("loom devcluster: step 'build etcd' failed; full log: /c/logs/build-etcd.log");
    const err = new Error('the local control plane did not start', { cause: new Error('building', { cause: root }) });
    expect(formatError(err)).toBe(
      'the local control plane did not start\n  caused by: building\n' +
        "  caused by: loom devcluster: step 'build etcd' failed; full log: /c/logs/build-etcd.log",
    );
  });

  it('cuts each huge message of the chain (a hook that failed with 100 MB of text, in loom render)', () => {
    const huge = 'x'.repeat(1_000_000);
    const lines = formatError(new Error(`sync hook: ${huge}`, { cause: new Error(`y${huge}`) })).split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]!.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    expect(lines[0]).toMatch(/^sync hook: x+… \(\d+ more characters\)$/);
    expect(lines[1]!.length).toBeLessThanOrEqual('  caused by: '.length + MAX_MESSAGE_CHARS);
  });

  it('prints thrown non-errors as text', () => {
    expect(formatError('plain')).toBe('plain');
  });

  it('stops at a cycle', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(formatError(a)).toBe('a\n  caused by: b');
  });
});
