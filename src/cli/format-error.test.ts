import { describe, expect, it } from 'vitest';
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
