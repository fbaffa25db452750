/**
 * Errors whose message a hook means for its caller. A handler's errors are answered with a generic
 * message, since their text can carry what must not leave the hook (a connection string, a host, a
 * token) and loom shows the answer in events and conditions. To say why the hook cannot answer in
 * words the parent's owner should read (a bad annotation, a missing field), throw a
 * {@link HookAnswerError}, or any error with `expose: true` (the convention of `http-errors`).
 */

/** An error whose message is answered to the caller. */
export class HookAnswerError extends Error {
  override name = 'HookAnswerError';
  /** Marks the message as meant for the caller. */
  readonly expose = true;
}

/** Whether `err` is meant for the caller: an error with `expose: true`. */
export function isExposed(err: unknown): err is Error {
  return err instanceof Error && (err as { expose?: unknown }).expose === true;
}
