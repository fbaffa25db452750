/**
 * A request the API server answers 401 goes once more when its credentials can be got afresh (an exec
 * plugin's credential expired early, an id-token revoked): client-go does the same, so a rotated
 * credential costs one extra round trip instead of a failed write.
 */
import type { IncomingMessage } from 'node:http';
import type { RequestOptions as HttpsRequestOptions } from 'node:https';

/** One sending of a request: the answer, and the options its credentials were applied to. */
export interface Attempt {
  response: IncomingMessage;
  applied: HttpsRequestOptions;
}

/**
 * Sends with `attempt`; on a 401 whose credentials `refused` drops (true: new ones may be accepted),
 * discards that answer and sends once more, with credentials applied anew. A second 401 is final.
 * The resend takes no second turn at the client rate limit: `attempt` is the sending alone.
 */
export async function resendOnceIfRefused(attempt: () => Promise<Attempt>, refused: ((opts: HttpsRequestOptions) => boolean) | undefined): Promise<IncomingMessage> {
  const first = await attempt();
  if (first.response.statusCode !== 401 || !refused?.(first.applied)) return first.response;
  first.response.resume();
  return (await attempt()).response;
}
