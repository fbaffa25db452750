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

/**
 * `text` when it is at most `maxChars` long; otherwise its head and `… (N more characters)`, at most
 * `maxChars` in all (`maxChars` must leave room for the note, say 64 or more). Cuts between the two
 * halves of a surrogate pair never happen, so the result is still well-formed text.
 */
export function boundedText(text: string, maxChars: number = MAX_MESSAGE_CHARS): string {
  if (text.length <= maxChars) return text;
  // The note is sized for the most characters that can be cut, so the head plus note never exceeds the limit.
  const noteChars = `… ( more characters)`.length + String(text.length).length;
  let head = Math.max(0, maxChars - noteChars);
  if (head > 0 && isHighSurrogate(text.charCodeAt(head - 1))) head -= 1;
  return `${text.slice(0, head)}… (${text.length - head} more characters)`;
}
