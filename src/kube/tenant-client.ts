/**
 * A {@link RestClient} whose requests are all made on behalf of one controller: they take that
 * controller's turn at the client rate limit, and end with it.
 */
import type { RestClient } from './rest-client.ts';

/**
 * `client` with every request made on behalf of `tenant` (see {@link RestRequest.tenant}) and, with
 * `stop`, given up when `stop` aborts: a stopped controller's requests still waiting for the rate limit
 * leave the line at once, taking no slot, and those in flight are abandoned. `stop` lives as long as the
 * controller, so it goes as the request's {@link RestRequest.stop}, which the client follows with a
 * listener it removes when the request is done; a signal combined per request would leave one behind
 * on `stop` for each request made.
 */
export function withTenant(client: RestClient, tenant: string, stop?: AbortSignal): RestClient {
  return {
    server: client.server,
    request: (req) => client.request({ ...req, tenant, stop: stop ?? req.stop }),
    watch: (path, query, signal, onEstablished) => client.watch(path, query, signal, onEstablished),
  };
}
