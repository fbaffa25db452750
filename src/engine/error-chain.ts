/**
 * An error and its causes as a list of messages, outermost first, so the step that actually failed
 * is never hidden behind a generic wrapper in a log line, an event or the terminal.
 */
import { inspect } from 'node:util';

/** Messages of `err` and each `cause` after it; stops at a cycle. */
export function errorChain(err: unknown): string[] {
  const messages: string[] = [];
  const seen = new Set<unknown>();
  for (let current = err; current !== undefined && current !== null && !seen.has(current); ) {
    seen.add(current);
    messages.push(current instanceof Error ? current.message : typeof current === 'string' ? current : inspect(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return messages;
}
