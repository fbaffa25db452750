import { describe, expect, it } from 'vitest';
import { NotAttemptedError } from '../apply/index.ts';
import { writeFailures } from './write-failures.ts';

describe('writeFailures', () => {
  it('quotes each attempted failure with its cause', () => {
    const error = writeFailures([new Error('create ConfigMap a/x failed', { cause: new Error('422 Invalid: bad key') })], 'child');
    expect(error.message).toBe('1 child write(s) failed: create ConfigMap a/x failed: 422 Invalid: bad key');
  });

  it('counts the writes not attempted instead of quoting them', () => {
    const first = new Error('create ConfigMap gone/a failed', { cause: new Error('403 Forbidden: … being terminated') });
    const skipped = Array.from({ length: 999 }, (_, i) => new NotAttemptedError(`create ConfigMap gone/b${i} not attempted`, { cause: first }));
    const error = writeFailures([first, ...skipped], 'child');
    expect(error.message).toBe('1 child write(s) failed: create ConfigMap gone/a failed: 403 Forbidden: … being terminated; 999 more not attempted, as the failure before them dooms them');
    expect(error.errors).toHaveLength(1000);
  });

  it('quotes at most ten failures and counts the rest', () => {
    const failures = Array.from({ length: 12 }, (_, i) => new Error(`update Secret ns/s${i} failed`));
    const error = writeFailures(failures, 'attachment');
    expect(error.message).toMatch(/^12 attachment write\(s\) failed: update Secret ns\/s0 failed; .*update Secret ns\/s9 failed; 2 more failed$/);
  });
});
