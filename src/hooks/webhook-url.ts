/**
 * Where a webhook lives, resolved the way Metacontroller does it (docs/hook-protocol.md, "Webhook URL"):
 * `url` wins; otherwise `service` plus `path` gives `<protocol>://<name>.<namespace>:<port><path>` — no
 * `.svc` suffix, cluster DNS search paths resolve it — with `port` 80 and `protocol` `http` by default
 * (also for `https`: Metacontroller does not switch the default port, and neither do we).
 */
import { HookError } from './hook-error.ts';

/** The addressing part of a Metacontroller `webhook` object. Defined here until `api/` has the hook types. */
export interface WebhookTarget {
  url?: string;
  service?: { name: string; namespace: string; port?: number; protocol?: string };
  path?: string;
}

const DEFAULT_PORT = 80;
const DEFAULT_PROTOCOL = 'http';

function serviceUrl(service: NonNullable<WebhookTarget['service']>, path: string | undefined): string {
  const where = `webhook service ${service.namespace}/${service.name}`;
  if (!service.name || !service.namespace) throw new HookError(`${where} needs both name and namespace`);
  if (path === undefined) throw new HookError(`${where} needs a path`);
  // Metacontroller concatenates blindly, so "sync" would yield the unusable "...:80sync"; say so instead.
  if (!path.startsWith('/')) throw new HookError(`${where}: path "${path}" must start with "/"`);
  const port = service.port ?? DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new HookError(`${where}: port ${port} is not a TCP port`);
  return `${service.protocol ?? DEFAULT_PROTOCOL}://${service.name}.${service.namespace}:${port}${path}`;
}

/**
 * The URL to POST to. Throws a {@link HookError} when the target names neither a `url` nor a `service`
 * with a `path`, or when the service part is unusable; a controller with such a hook does not start.
 */
export function webhookUrl(target: WebhookTarget): string {
  if (target.url !== undefined) {
    if (target.url === '') throw new HookError('webhook url is empty');
    return target.url;
  }
  if (target.service !== undefined) return serviceUrl(target.service, target.path);
  throw new HookError('webhook needs either url, or service and path');
}
