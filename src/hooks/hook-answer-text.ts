/**
 * How a hook's unusable answer is quoted in an error message, the same for webhooks and for hook
 * modules that `loom render` calls in-process: the start of the body, or the HTTP status text when
 * there is no body, so a bare 404 does not read as `HTTP 404:` followed by nothing.
 */
import type * as Http from 'node:http';
import { createRequire } from 'node:module';

// Required, not imported: importing `node:http` as an ES module reads its lazy WebSocket getters, which
// load Node's bundled undici (~14 MiB resident) that loom never uses.
const { STATUS_CODES } = createRequire(import.meta.url)('node:http') as typeof Http;

/** How much of a body an error message quotes. */
const BODY_EXCERPT_CHARS = 200;

/** The first 200 characters of `text`, with `…` when there were more. */
export function excerpt(text: string): string {
  return text.length > BODY_EXCERPT_CHARS ? `${text.slice(0, BODY_EXCERPT_CHARS)}…` : text;
}

/** `HTTP 500: <the body's start>`, or `HTTP 404 Not Found` for an empty body; `note` follows the code. */
export function describeStatus(status: number, body: string, note = ''): string {
  if (body.trim() === '') return `HTTP ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}${note}`;
  return `HTTP ${status}${note}: ${excerpt(body)}`;
}
