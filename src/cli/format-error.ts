/**
 * Renders an error and its chain of causes for a terminal, one cause per line.
 */
import { errorChain } from '../engine/error-chain.ts';

/** `message`, then `  caused by: message` for each `cause` in the chain. */
export function formatError(err: unknown): string {
  return errorChain(err).map((message, i) => (i === 0 ? message : `  caused by: ${message}`)).join('\n');
}
