/**
 * Makes sure a control plane never outlives the process that started it: SIGINT and SIGTERM stop it
 * in order, and on exit (where only synchronous code runs) whatever still runs is killed by PID.
 */
import type { ManagedProcess } from './managed-process.ts';

/** What the guards act on. */
export interface GuardTarget {
  /** Orderly, idempotent stop. */
  stop(): Promise<void>;
  processes: readonly ManagedProcess[];
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
const SIGNAL_EXIT_CODES: Record<(typeof SIGNALS)[number], number> = { SIGINT: 130, SIGTERM: 143 };

/** Installs the guards; returns the function that removes them. */
export function installExitGuards(target: GuardTarget): () => void {
  const onExit = (): void => {
    for (const p of target.processes) p.killNow();
  };
  const onSignal = (signal: (typeof SIGNALS)[number]): void => {
    // Adding a listener disables Node's default "exit on signal"; restore it unless someone else
    // (a CLI command, a test runner) also listens and so owns the decision to exit.
    const othersDecide = process.listenerCount(signal) > 1;
    void target.stop().finally(() => {
      if (!othersDecide) process.exit(SIGNAL_EXIT_CODES[signal]);
    });
  };
  process.on('exit', onExit);
  for (const signal of SIGNALS) process.on(signal, onSignal);
  return () => {
    process.off('exit', onExit);
    for (const signal of SIGNALS) process.off(signal, onSignal);
  };
}
