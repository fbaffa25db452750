/**
 * Runs a sliced computation of the core (`core/run-to-end.ts`) on the event loop, letting it turn
 * between slices, so checking and planning a hook's thousands of children never holds the loop for
 * more than a slice at a time: probes, watches and other controllers go on meanwhile.
 */
import { nextTurn } from '../engine/index.ts';

/** Children per slice: a slice of checking or planning costs a few milliseconds. */
export const SLICE_CHILDREN = 250;

/** Drives `steps` to its end, awaiting a turn of the event loop at every pause. */
export async function inTurns<R>(steps: Generator<void, R>): Promise<R> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await nextTurn();
  }
}
