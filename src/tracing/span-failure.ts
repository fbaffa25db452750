/**
 * How a failed piece of work is recorded on its span: the exception, an error status and
 * `loom.result=error`, each message cut (`api/bounded-text.ts`). The batch processor keeps up to
 * thousands of spans until they are exported, and a failed sync records its error on its own span and
 * on its hook call's: a huge message would be kept that many times over.
 */
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { boundedStack, boundedText } from '../api/index.ts';

/** The part of a span a failure is recorded on. */
export type FailedSpan = Pick<Span, 'recordException' | 'setStatus' | 'setAttribute'>;

/** Records `err` on `span`. */
export function recordFailure(span: FailedSpan, err: unknown): void {
  const error = err instanceof Error ? err : new Error(String(err));
  const message = boundedText(error.message);
  span.recordException({ name: error.name, message, stack: boundedStack(error) });
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.setAttribute('loom.result', 'error');
}
