import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { formatLogLine, textLogStream } from './pretty-log.ts';

/** A local time with a known clock reading. */
const AT = new Date(2026, 10, 25, 9, 4, 5, 120).getTime();

describe('formatLogLine', () => {
  it('puts time, level and message first, then the fields, quoting only values that need it', () => {
    const line = JSON.stringify({ level: 40, time: AT, pid: 1, hostname: 'h', msg: 'could not record event', reason: 'SyncError', object: 'default/web', note: 'two words', n: 3 });
    expect(formatLogLine(line, false)).toBe('09:04:05.120 WARN  could not record event reason=SyncError object=default/web note="two words" n=3\n');
  });

  it('shows an error by its message, with its stack from level error up', () => {
    const err = { type: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:8080', stack: 'Error: connect ECONNREFUSED\n    at x.ts:1' };
    expect(formatLogLine(JSON.stringify({ level: 40, time: AT, msg: 'sync failed', err }), false))
      .toBe('09:04:05.120 WARN  sync failed err="connect ECONNREFUSED 127.0.0.1:8080"\n');
    expect(formatLogLine(JSON.stringify({ level: 50, time: AT, msg: 'boom', err }), false))
      .toBe('09:04:05.120 ERROR boom err="connect ECONNREFUSED 127.0.0.1:8080"\n    Error: connect ECONNREFUSED\n        at x.ts:1\n');
  });

  it('colours the level and the time when asked', () => {
    const text = formatLogLine(JSON.stringify({ level: 50, time: AT, msg: 'x' }), true);
    expect(text).toContain('\u001b[31mERROR\u001b[0m');
    expect(text).toContain('\u001b[90m09:04:05.120\u001b[0m');
  });

  it('passes a line that is not JSON through', () => {
    expect(formatLogLine('plain words', false)).toBe('plain words\n');
  });
});

describe('textLogStream', () => {
  it('takes pino\'s output as a destination', () => {
    const written: string[] = [];
    const logger = pino({ level: 'info' }, textLogStream({ write: (t) => written.push(t) }, false));
    logger.child({ controller: 'CompositeController/web' }).info({ children: 2 }, 'controller started');
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}controller started controller=CompositeController\/web children=2\n$/);
  });
});
