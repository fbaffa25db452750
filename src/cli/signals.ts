/**
 * How the CLI hears SIGINT and SIGTERM: the first asks for a graceful stop (an abort every command
 * shuts down on), the second, of either kind, ends the process at once. Someone who pressed Ctrl-C on
 * a stop that was begun with SIGTERM (or the reverse) wants out now, not a second drain.
 */

/** The signals that stop loom, with the status of a process they ended (128 + the signal's number, as a shell reports it). */
const EXIT_STATUS = { SIGINT: 130, SIGTERM: 143 } as const;
const STOP_SIGNALS = Object.keys(EXIT_STATUS) as (keyof typeof EXIT_STATUS)[];

/** What {@link abortOnSignals} needs of the process: its signal events. */
export interface SignalSource {
  on(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  off(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
}

/**
 * Returns a signal that aborts on the first SIGINT or SIGTERM; from then on either of them calls
 * `exit` with 130 (SIGINT) or 143 (SIGTERM).
 */
export function abortOnSignals(source: SignalSource, exit: (status: number) => void): AbortSignal {
  const controller = new AbortController();
  const second = (signal: NodeJS.Signals): void => exit(signal === 'SIGINT' ? EXIT_STATUS.SIGINT : EXIT_STATUS.SIGTERM);
  const first = (signal: NodeJS.Signals): void => {
    for (const name of STOP_SIGNALS) {
      source.off(name, first);
      source.on(name, second);
    }
    controller.abort(new Error(`received ${signal}`));
  };
  for (const name of STOP_SIGNALS) source.on(name, first);
  return controller.signal;
}
