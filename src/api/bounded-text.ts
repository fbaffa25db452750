/**
 * How loom cuts a message it did not write itself (a JSONata `$error(…)`, a webhook's error body, an
 * API server's answer) before carrying it into logs, events, status conditions and trace spans: the
 * head is kept, and the end says how many characters were cut. A message is for a person to read; a
 * few KiB says what went wrong, while a 100 MB one multiplied by every sink and every retry ends the
 * process that carries it.
 */

/**
 * The longest error message loom carries (docs/hook-protocol.md, "Failures and Retry-After"): 4 KiB
 * characters, the same as a controller's `Ready` condition message.
 */
export const MAX_MESSAGE_CHARS = 4_096;

/** True for the first half of a UTF-16 surrogate pair, which must not be cut from its second half. */
function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** The head of a text `totalChars` long that starts with `start`, and how much was cut: `maxChars` at most in all. */
function cut(start: string, totalChars: number, maxChars: number): string {
  // The note is sized for the most characters that can be cut, so the head plus note never exceeds the limit.
  const noteChars = '… ( more characters)'.length + String(totalChars).length;
  let head = Math.max(0, maxChars - noteChars);
  if (head > 0 && isHighSurrogate(start.charCodeAt(head - 1))) head -= 1;
  return `${start.slice(0, head)}… (${totalChars - head} more characters)`;
}

/**
 * `text` when it is at most `maxChars` long; otherwise its head and `… (N more characters)`, at most
 * `maxChars` in all (`maxChars` must leave room for the note, say 64 or more). A surrogate pair is
 * never cut in half, so the result is still well-formed text.
 */
export function boundedText(text: string, maxChars: number = MAX_MESSAGE_CHARS): string {
  return text.length <= maxChars ? text : cut(text, text.length, maxChars);
}

/**
 * `parts.join(separator)`, bounded as {@link boundedText} bounds a text, without ever building the
 * whole join: an error's chain of causes (`errorChain`) may hold the same huge message several times.
 */
export function boundedJoin(parts: readonly string[], separator: string, maxChars: number = MAX_MESSAGE_CHARS): string {
  const total = parts.reduce((sum, part) => sum + part.length, separator.length * Math.max(0, parts.length - 1));
  if (total <= maxChars) return parts.join(separator);
  let start = '';
  for (const part of parts) {
    if (start.length >= maxChars) break;
    start += (start === '' ? '' : separator) + part.slice(0, maxChars);
  }
  return cut(start, total, maxChars);
}

/**
 * `err.stack` with its message cut: the first line as V8 writes it (`HookError: <message>`), then the
 * frames (themselves cut to `MAX_MESSAGE_CHARS`). V8's stack starts with the whole message, however
 * long.
 */
export function boundedStack(err: Error): string {
  const stack = typeof err.stack === 'string' ? err.stack : '';
  const at = stack.indexOf('\n    at ');
  return `${err.name}: ${boundedText(err.message)}${at < 0 ? '' : boundedText(stack.slice(at))}`;
}
