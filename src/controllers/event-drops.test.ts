import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../engine/manual-clock.test-support.ts';
import type { EventDropReason } from '../kube/index.ts';
import { eventDropReport } from './event-drops.ts';

function setUp() {
  const clock = manualClock();
  const lines: { level: number; msg: string; dropped: Record<string, number> }[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
  const counted: EventDropReason[] = [];
  const report = eventDropReport({ clock, logger, count: (reason) => counted.push(reason), intervalMs: 60_000 });
  return { clock, lines, counted, report };
}

describe('eventDropReport', () => {
  it('counts every drop, and logs at most one line an interval with the drops since the last', async () => {
    const { clock, lines, counted, report } = setUp();
    for (let i = 0; i < 500; i++) report(i % 2 === 0 ? 'expired' : 'queue_full');
    expect(counted).toHaveLength(500);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.dropped).toEqual({ expired: 1 });
    await clock.advance(59_999);
    report('expired');
    expect(lines).toHaveLength(1);
    await clock.advance(1);
    report('queue_full');
    expect(lines).toHaveLength(2);
    // The 499 after the first line, the one a moment before the interval ended, and this one.
    expect(lines[1]!.dropped).toEqual({ expired: 250, queue_full: 251 });
    expect(lines[1]!.level).toBe(40); // warn: events were lost to the budget
    expect(lines[1]!.msg).toContain('501 events dropped');
  });

  it('logs drops by the per-object spam filter alone at debug level', () => {
    const { lines, report } = setUp();
    report('filtered');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.level).toBe(20);
  });
});
