/**
 * Whether a JSONata expression compiles, as `loom validate` reports it: the same compiler loom runs,
 * so `validate` and a running controller name the same place.
 */
import { systemClock } from '../engine/index.ts';
import { compileJsonataHook, JsonataCompileError } from '../hooks/index.ts';

/** The compile error of `expression` as a message (`syntax error at line 1, column 5: …`), or `undefined` when it compiles. */
export function jsonataSyntaxError(expression: string): string | undefined {
  try {
    compileJsonataHook({ expression, hook: 'sync', timeoutMs: 1_000, clock: systemClock });
    return undefined;
  } catch (error) {
    if (error instanceof JsonataCompileError) return error.message.replace(/^.*?JSONata /, '');
    return `syntax error: ${error instanceof Error ? error.message : String(error)}`;
  }
}
