/**
 * The program of a JSONata evaluator process, started by loom's evaluator pool
 * (`hooks/evaluator-pool.ts`) with a V8 heap limit. It answers loom's messages over the IPC channel
 * (`hooks/evaluator-service.ts`) and says `ready` once it can. It has no other input or output, no
 * environment but glibc's arena limit, and no permissions beyond reading its own code
 * (`hooks/evaluator-sandbox.ts`), and it exits when loom goes away: at once when idle, and within
 * half a second even while one native call holds its event loop (`hooks/parent-watchdog.ts`).
 */
// Straight to the modules it runs, not through the folders' indexes: each evaluator process then
// loads JSONata and little else (about 10 MiB less resident memory than the whole hooks folder).
import { systemClock } from './engine/clock.ts';
import type { EvaluatorRequest } from './hooks/evaluator-protocol.ts';
import { createEvaluatorService } from './hooks/evaluator-service.ts';
import { watchParent } from './hooks/parent-watchdog.ts';
import { DEFAULT_MAX_RESPONSE_BYTES } from './hooks/response-limit.ts';

if (process.send === undefined) {
  process.stderr.write('jsonata-evaluator: start it from loom (it needs an IPC channel)\n');
  process.exit(2);
}
const send = process.send.bind(process);
const serve = createEvaluatorService({ clock: systemClock, send: (reply) => send(reply), maxResponseChars: DEFAULT_MAX_RESPONSE_BYTES });
// Messages are handled in order, one at a time: a call's evaluation holds the event loop anyway, and
// a `define` must be done before the call that needs it.
let queue = Promise.resolve();
process.on('message', (message: EvaluatorRequest) => {
  queue = queue.then(() => serve(message));
});
process.on('disconnect', () => process.exit(0));
await watchParent();
send({ type: 'ready' });
