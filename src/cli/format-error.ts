import { inspect } from 'node:util';

/**
 * Renders an error and its chain of causes for a terminal, one cause per line, so the line that
 * names the failed step is never hidden behind a generic wrapper.
 */

/** `message`, then `  caused by: message` for each `cause` in the chain. */
export function formatError(err: unknown): string {
  const lines: string[] = [];
  let current: unknown = err;
  const seen = new Set<unknown>();
  while (current !== undefined && current !== null && !seen.has(current)) {
    seen.add(current);
    const message = current instanceof Error ? current.message : typeof current === 'string' ? current : inspect(current);
    lines.push(lines.length === 0 ? message : `  caused by: ${message}`);
    current = current instanceof Error ? current.cause : undefined;
  }
  return lines.join('\n');
}
