/**
 * Sliced computations: the core's long loops over a hook's children are generators that pause after
 * each slice (`planChildrenInSlices`, `normaliseDesiredChildrenInSlices`), so a caller on the event
 * loop can let it turn between slices. Callers that need no turns run them to the end at once.
 */

/** Runs a sliced computation to its end, without pausing. */
export function runToEnd<R>(steps: Generator<void, R>): R {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
