/**
 * How each controller gets writes of its own: they take turns with other controllers' for the client
 * rate limit (engine/fair-throttle.ts), and end with the controller. Stopped (or its start abandoned),
 * its writes waiting for a slot leave at once and no further one is sent; that covers every write of
 * its syncs, whatever step makes it.
 */
import type { Tracing } from '../engine/index.ts';
import { createObjectWriter, withTenant, type RestClient, type TypeResolver } from '../kube/index.ts';
import type { Host } from './host.ts';
import { tracedWriter } from './traced-ports.ts';

/** The host's {@link Host.writerFor}: writers over `client` on behalf of a tenant, ended by its stop signal, traced when `tracing` is. */
export function tenantWriters(client: RestClient, resolveType: TypeResolver, fieldManager: string, tracing?: Tracing): Host['writerFor'] {
  return (tenant, stop) => {
    const writer = createObjectWriter(withTenant(client, tenant, stop), resolveType, fieldManager);
    return tracing ? tracedWriter(writer, tracing) : writer;
  };
}

/** A controller's host, whose writer is its own, and the stop that ends that writer's requests. */
export interface ControllerWriter {
  host: Host;
  /** Ends the writer's requests: queued ones reject at once, none is sent after. */
  stop(): void;
  /** Aborted by {@link ControllerWriter.stop}. */
  signal: AbortSignal;
}

/**
 * `host` with a writer for the controller `tenant`, ended by {@link ControllerWriter.stop} or by
 * `signal` (the meta-controller's own end), whichever comes first. `signal` outlives many controllers,
 * so it is followed by a listener that the stop removes, leaving nothing behind on it.
 */
export function controllerWriter(host: Host, tenant: string, signal: AbortSignal): ControllerWriter {
  const stopped = new AbortController();
  const stop = (): void => {
    signal.removeEventListener('abort', stop);
    stopped.abort();
  };
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  return { host: { ...host, writer: host.writerFor(tenant, stopped.signal) }, stop, signal: stopped.signal };
}
