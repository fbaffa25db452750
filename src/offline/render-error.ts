/**
 * What `loom render` reports when it cannot render: bad input (`file: path: message`, one line per
 * problem) or a hook that failed or answered badly (the hook's own message). The message is printed
 * as is and the command exits 1; anything else that escapes is a bug and is printed with its causes.
 */

/** A problem the user can fix; `message` is ready to print (one or more lines). */
export class RenderError extends Error {
  override readonly name = 'RenderError';
}

/** Throws one {@link RenderError} with every line, when there are any. */
export function throwIfAny(lines: readonly string[]): void {
  if (lines.length > 0) throw new RenderError(lines.join('\n'));
}
