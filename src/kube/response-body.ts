/**
 * Reading an API server's answer: decompressed when it came gzip-compressed (loom asks for it; the API
 * server compresses large answers, lists above all), and bounded on its DECOMPRESSED size, so that a
 * small compressed answer that expands without end (a gzip bomb, from a proxy or a broken server)
 * fails once it passes the limit instead of filling loom's memory. A whole answer is bounded, and each
 * line of a watch stream.
 */
import type { IncomingMessage } from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/**
 * The default bound: far above any answer a Kubernetes API server gives (an object is at most a few
 * MiB, and lists come in pages), far below what would exhaust a controller's memory.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

const NEWLINE = 0x0a;

/** The bytes of `res`'s body, decompressed when it says it is gzip; `what` names the request in errors. */
export function bodyOf(res: IncomingMessage, what: string): Readable {
  if (res.headers['content-encoding'] !== 'gzip') return res;
  const gunzip = createGunzip();
  // Its errors reach the reader through the gunzip stream, which pipeline destroys with them.
  return pipeline(res, gunzip, () => undefined).on('error', (cause: NodeJS.ErrnoException) => {
    if (cause.code?.startsWith('Z_')) cause.message = `${what}: the response could not be decompressed: ${cause.message}`;
  });
}

function tooLarge(what: string, thing: string, limit: number): Error {
  return new Error(`${what}: ${thing} is larger than the limit of ${limit} bytes`);
}

/** Reads `body` whole as UTF-8; stops reading and rejects once it passes `limit` bytes. */
export async function readBounded(body: Readable, limit: number, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of body) {
      bytes += (chunk as Buffer).length;
      if (bytes > limit) throw tooLarge(what, 'the response', limit);
      chunks.push(chunk as Buffer);
    }
  } finally {
    // Stopped early (too large, or the consumer failed): nothing more is read or decompressed.
    body.destroy();
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The lines of `body` (UTF-8, `\n`-separated; a newline byte never occurs inside a multi-byte
 * character, so splitting bytes is safe); rejects once one line passes `limit` bytes.
 */
export async function* boundedLines(body: Readable, limit: number, what: string): AsyncIterable<string> {
  let parts: Buffer[] = [];
  let partBytes = 0;
  for await (const chunk of body) {
    let rest = chunk as Buffer;
    for (let end = rest.indexOf(NEWLINE); end !== -1; end = rest.indexOf(NEWLINE)) {
      if (partBytes + end > limit) throw tooLarge(what, 'an event', limit);
      yield Buffer.concat([...parts, rest.subarray(0, end)]).toString('utf8');
      parts = [];
      partBytes = 0;
      rest = rest.subarray(end + 1);
    }
    partBytes += rest.length;
    if (partBytes > limit) throw tooLarge(what, 'an event', limit);
    if (rest.length > 0) parts.push(rest);
  }
  if (partBytes > 0) yield Buffer.concat(parts).toString('utf8');
}
