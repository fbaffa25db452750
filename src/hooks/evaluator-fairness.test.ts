import { describe, expect, it } from 'vitest';
import { whoMakesRoom, whoseTurn, type Owner, type Running, type Waiting } from './evaluator-fairness.ts';

const owner = (name: string, lastServed = 0): Owner => ({ name, lastServed });
const a = owner('a', 3);
const b = owner('b', 1);
const c = owner('c', 2);
const waiting = (o: Owner, since = 0, timeoutMs = 1_000, suspect = false): Waiting & { id: string } => ({ owner: o, since, timeoutMs, suspect, id: `${o.name}@${since}` });
const running = (o: Owner, since = 0, suspect = false): Running => ({ owner: o, since, suspect });

describe('whoseTurn', () => {
  it.each([
    { name: 'the controller holding fewest processes first', queue: [waiting(a), waiting(b)], busy: [running(b)], processes: 3, turn: 'a@0' },
    { name: 'among equals, the one served longest ago', queue: [waiting(a), waiting(c), waiting(b)], busy: [], processes: 2, turn: 'b@0' },
    { name: 'no controller beyond processes − 1', queue: [waiting(a)], busy: [running(a)], processes: 2, turn: undefined },
    { name: 'one process: a controller may hold it', queue: [waiting(a)], busy: [], processes: 1, turn: 'a@0' },
    { name: 'no suspect while suspects hold processes − 1', queue: [waiting(a, 0, 1_000, true), waiting(b, 5)], busy: [running(c, 0, true)], processes: 3, turn: 'b@5' },
    { name: 'a suspect when suspects hold fewer', queue: [waiting(a, 0, 1_000, true)], busy: [running(c)], processes: 3, turn: 'a@0' },
  ])('$name', ({ queue, busy, processes, turn }) => {
    expect(whoseTurn(queue, busy, processes)?.id).toBe(turn);
  });
});

describe('whoMakesRoom', () => {
  it.each([
    { name: 'nobody before a quarter of the waiting call’s budget', queue: [waiting(c, 0, 1_000)], busy: [running(a, -5_000), running(b, -6_000)], now: 249, victim: undefined },
    { name: 'the longest-running call after it', queue: [waiting(c, 0, 1_000)], busy: [running(a, -5_000), running(b, -6_000)], now: 250, victim: 1 },
    { name: 'a controller holding more before one holding less', queue: [waiting(c, 0, 1_000)], busy: [running(a, -1_000), running(a, -1_000), running(b, -6_000)], now: 300, victim: 0 },
    { name: 'no call that has run less than the patience', queue: [waiting(c, 0, 1_000)], busy: [running(a, 200), running(b, 100)], now: 300, victim: undefined },
    { name: 'nothing for a controller that holds a process', queue: [waiting(a, 0, 1_000)], busy: [running(a, -5_000), running(b, -5_000)], now: 5_000, victim: undefined },
    { name: 'nothing for a suspect', queue: [waiting(c, 0, 1_000, true)], busy: [running(a, -5_000), running(b, -5_000)], now: 5_000, victim: undefined },
    { name: 'a suspect before an older call in good standing', queue: [waiting(c, 0, 1_000)], busy: [running(b, -6_000), running(a, -1_000, true)], now: 300, victim: 1 },
    { name: 'a suspect before a controller holding more', queue: [waiting(c, 0, 1_000)], busy: [running(b, -6_000), running(b, -6_000), running(a, -1_000, true)], now: 300, victim: 2 },
    { name: 'among suspects, a controller holding more, then the longest-running', queue: [waiting(c, 0, 1_000)], busy: [running(a, -1_000, true), running(b, -2_000, true), running(b, -500, true)], now: 300, victim: 1 },
    { name: 'no suspect that has run less than the patience', queue: [waiting(c, 0, 1_000)], busy: [running(b, -6_000), running(a, 100, true)], now: 300, victim: 0 },
  ])('$name', ({ queue, busy, now, victim }) => {
    expect(whoMakesRoom(queue, busy, now)).toBe(victim);
  });
});
