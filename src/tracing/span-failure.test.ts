/**
 * A failure recorded on a span is bounded: the batch processor keeps up to thousands of spans until
 * they are exported, so a huge message (`$error($pad("x", 100000000))`) recorded on the sync's span
 * and on its hook call's span would be kept that many times.
 */
import { SpanStatusCode, type Exception, type SpanStatus } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_CHARS } from '../api/index.ts';
import { recordFailure, type FailedSpan } from './span-failure.ts';

function recordingSpan() {
  const seen: { exceptions: Exception[]; statuses: SpanStatus[]; attributes: Record<string, unknown> } = { exceptions: [], statuses: [], attributes: {} };
  const span = {
    recordException: (exception: Exception) => void seen.exceptions.push(exception),
    setStatus: (status: SpanStatus) => (seen.statuses.push(status), span),
    setAttribute: (key: string, value: unknown) => ((seen.attributes[key] = value), span),
  } as unknown as FailedSpan;
  return { span, seen };
}

const sizeOf = (exception: Exception): number => JSON.stringify(exception).length;

describe('recordFailure', () => {
  it('records a huge failure with its message and stack cut', () => {
    const { span, seen } = recordingSpan();
    const huge = 'x'.repeat(1_000_000);
    recordFailure(span, new Error(`sync hook: JSONata error at line 1, column 1: ${huge}`, { cause: new Error(huge) }));
    const [exception] = seen.exceptions;
    expect(sizeOf(exception!)).toBeLessThanOrEqual(3 * MAX_MESSAGE_CHARS);
    expect((exception as { message: string }).message).toMatch(/^sync hook: JSONata error at line 1, column 1: x+… \(\d+ more characters\)$/);
    expect((exception as { stack: string }).stack).toMatch(/\n\s+at /);
    expect(seen.statuses[0]!.code).toBe(SpanStatusCode.ERROR);
    expect(seen.statuses[0]!.message!.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    expect(seen.attributes['loom.result']).toBe('error');
  });

  it('records a short failure as it is, its name kept', () => {
    const { span, seen } = recordingSpan();
    class HookError extends Error {
      override readonly name = 'HookError';
    }
    recordFailure(span, new HookError('sync hook: HTTP 500'));
    expect(seen.exceptions[0]).toMatchObject({ name: 'HookError', message: 'sync hook: HTTP 500' });
    expect(seen.statuses[0]).toEqual({ code: SpanStatusCode.ERROR, message: 'sync hook: HTTP 500' });
  });
});
