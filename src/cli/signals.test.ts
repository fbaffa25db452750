/**
 * The CLI's signals: the first SIGINT or SIGTERM begins a graceful stop, and a second one of either
 * kind ends the process at once (docs/running-loom.md, `--shutdown-grace-period`).
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { abortOnSignals } from './signals.ts';

/** A process stand-in: signals are emitted by hand, exits are recorded. */
function harness(): { emit: (signal: NodeJS.Signals) => void; exits: number[]; signal: AbortSignal } {
  const source = new EventEmitter();
  const exits: number[] = [];
  const signal = abortOnSignals(source, (status) => exits.push(status));
  return { emit: (name) => source.emit(name, name), exits, signal };
}

describe('abortOnSignals', () => {
  it('aborts on the first signal without exiting', () => {
    for (const first of ['SIGINT', 'SIGTERM'] as const) {
      const { emit, exits, signal } = harness();
      emit(first);
      expect(signal.aborted).toBe(true);
      expect((signal.reason as Error).message).toBe(`received ${first}`);
      expect(exits).toEqual([]);
    }
  });

  it.each([
    ['SIGTERM', 'SIGTERM', 143],
    ['SIGTERM', 'SIGINT', 130],
    ['SIGINT', 'SIGTERM', 143],
    ['SIGINT', 'SIGINT', 130],
  ] as const)('after %s, exits at once on %s with status %i', (first, second, status) => {
    const { emit, exits } = harness();
    emit(first);
    emit(second);
    expect(exits).toEqual([status]);
  });
});
