/**
 * Ends an evaluator process whose parent (loom) is gone, even while an evaluation holds its event
 * loop. The IPC channel's 'disconnect' is seen only when the event loop is free, and one native call
 * (a backtracking regex) can hold it for hours; an orphan would run on for as long, since its killer
 * was the parent. So a worker thread, whose own event loop no evaluation can block, checks the parent
 * process id every {@link CHECK_EVERY_MS}: when the process has been handed to another parent (the
 * kernel does that when the parent dies), it kills its own process. A worker thread starts only when
 * the main thread's event loop turns, so {@link watchParent} resolves once it runs: the evaluator says
 * `ready` after that, before any evaluation can block it.
 */
import { Worker } from 'node:worker_threads';

/** How often the watchdog looks: an orphan lives at most about this long. */
export const CHECK_EVERY_MS = 500;

/**
 * The watchdog's program. `process.kill` of its own process id from a worker ends the whole process
 * at once (`process.exit` there would end only the worker). Its timer keeps the worker alive; the
 * worker itself is unref'd, so it never keeps the process alive.
 */
const WATCHDOG = `
const { workerData } = require('node:worker_threads');
setInterval(() => {
  if (process.ppid !== workerData.parent) process.kill(process.pid, 'SIGKILL');
}, workerData.everyMs);
`;

/** Starts the watchdog for the current parent; resolves once it runs. */
export async function watchParent(): Promise<void> {
  const worker = new Worker(WATCHDOG, {
    eval: true,
    workerData: { parent: process.ppid, everyMs: CHECK_EVERY_MS },
    // A few MiB are plenty for a timer; the default young generation alone would be larger.
    resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 1, codeRangeSizeMb: 4, stackSizeMb: 1 },
    stdout: false, stderr: false,
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('online', resolve);
    worker.once('error', reject);
  });
  worker.unref();
}
