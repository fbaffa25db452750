/**
 * An error and its causes as a list of messages, outermost first, so the step that actually failed
 * is never hidden behind a generic wrapper in a log line, an event or the terminal.
 */
import { inspect } from 'node:util';

/** The message of one link: an error's, a string, a plain object's `message` (as libraries throw), or the value shown. */
function messageOf(value: unknown): string {
  if (value instanceof Error || typeof value === 'string') return value instanceof Error ? value.message : value;
  const message = typeof value === 'object' ? (value as { message?: unknown }).message : undefined;
  return typeof message === 'string' ? message : inspect(value);
}

/**
 * Messages of `err` and each `cause` after it; stops at a cycle. A cause whose message the one before
 * already ends with is left out (`connect ECONNREFUSED …: connect ECONNREFUSED …` says it once).
 */
export function errorChain(err: unknown): string[] {
  const messages: string[] = [];
  const seen = new Set<unknown>();
  for (let current = err; current !== undefined && current !== null && !seen.has(current); ) {
    seen.add(current);
    const message = messageOf(current);
    if (!messages.at(-1)?.endsWith(message)) messages.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return messages;
}
