/**
 * The default bound on a hook's answer, in its own module so the JSONata evaluator processes can
 * import it without loading the webhook client.
 */

/** A response body larger than this (16 MiB) fails the call unless `maxResponseBytes` says otherwise. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
