/**
 * The root logger bounds what a line carries: a failure whose message is huge (a JSONata
 * `$error($pad("x", 100000000))`, an error body quoted by a library) is logged with its message cut,
 * once per line, however it is passed (as the message, as `err`, as the cause of `err`).
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_CHARS } from '../api/bounded-text.ts';
import { rootLogger } from './root-logger.ts';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = rootLogger('info', stream);
  const parsed = () => lines.map((line) => ({ line, json: JSON.parse(line) as Record<string, unknown> }));
  /** The only line logged, once it is written. */
  const only = async () => {
    await expect.poll(() => lines.length).toBe(1);
    return parsed()[0]!;
  };
  return { logger, only };
}

const huge = 'x'.repeat(1_000_000);
/** Room for the line's own fields besides the message, the error's message and a bounded stack. */
const MAX_LINE_CHARS = 4 * MAX_MESSAGE_CHARS;

describe('root logger: size of a line', () => {
  it('cuts a huge message', async () => {
    const { logger, only } = capture();
    logger.child({ controller: 'c' }).warn(`sync failed: ${huge}`);
    const { line, json } = await only();
    expect(line.length).toBeLessThanOrEqual(MAX_LINE_CHARS);
    expect(json.msg).toMatch(/^sync failed: x+… \(\d+ more characters\)$/);
  });

  it('cuts a huge error and its causes, keeping its type, its fields and where it was thrown', async () => {
    const { logger, only } = capture();
    const inner = Object.assign(new Error(`boom ${huge}`), { code: 'D3137' });
    const err = new Error(`sync of default/web failed: ${huge}`, { cause: inner });
    logger.child({ controller: 'c' }).warn({ err, key: 'default/web' }, 'sync failed');
    const { line, json } = await only();
    expect(line.length).toBeLessThanOrEqual(MAX_LINE_CHARS);
    const logged = json.err as Record<string, unknown>;
    expect(logged.type).toBe('Error');
    expect(logged.message).toMatch(/^sync of default\/web failed: x+… \(\d+ more characters\)/);
    expect(logged.stack).toMatch(/\n\s+at /);
    expect(json.key).toBe('default/web');
  });

  it('logs a short error as pino does', async () => {
    const { logger, only } = capture();
    const err = Object.assign(new Error('connect ECONNREFUSED', { cause: new Error('socket closed') }), { code: 'ECONNREFUSED' });
    logger.error({ err }, 'request failed');
    const { json } = await only();
    expect(json.msg).toBe('request failed');
    expect(json.err).toMatchObject({ type: 'Error', message: 'connect ECONNREFUSED: socket closed', code: 'ECONNREFUSED' });
    expect((json.err as { stack: string }).stack).toMatch(/^Error: connect ECONNREFUSED\n\s+at /);
  });
});
