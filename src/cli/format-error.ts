/**
 * Renders an error and its chain of causes for a terminal, one cause per line.
 */
import { boundedText } from '../api/index.ts';
import { errorChain } from '../engine/error-chain.ts';

/** `message`, then `  caused by: message` for each `cause` in the chain, each cut (`api/bounded-text.ts`). */
export function formatError(err: unknown): string {
  return errorChain(err).map((message, i) => (i === 0 ? boundedText(message) : `  caused by: ${boundedText(message)}`)).join('\n');
}
