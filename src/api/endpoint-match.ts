/**
 * Which TLS and auth settings a webhook uses (docs/hook-protocol.md,
 * "Webhook TLS, authentication and ETag"): its own when it sets any of `caBundle`, `clientTLS`,
 * `authorization` and `basicAuth` — all of its own and nothing else, no field-level merge — otherwise
 * those of the first `endpointConfigs[]` entry whose `host` matches the host of the hook URL.
 *
 * Matching is Metacontroller's: case-insensitive; an entry's `host` may carry a port; a URL without a
 * port has the scheme's default one (443 for https, 80 for http), so `example.com`, `example.com:443`
 * and `https://example.com:443/…` all meet for https. A service-form webhook's URL is
 * `<protocol>://<name>.<namespace>:<port><path>`, so it matches on `name.namespace[:port]`.
 */
import type { EndpointConfig, WebhookAuth } from './controller-spec.ts';

/** The settings a webhook uses and where they come from. */
export interface EffectiveWebhookAuth {
  /** The settings; `{}` when neither the webhook nor a matching entry sets any. */
  auth: WebhookAuth;
  /** Index into `endpointConfigs` of the entry used; absent when the webhook's own settings (or none) apply. */
  endpointConfigIndex?: number;
}

const AUTH_KEYS = ['caBundle', 'clientTLS', 'authorization', 'basicAuth'] as const;

const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'https:': '443', 'http:': '80' };

/** `host[:port]`, a bracketed IPv6 literal allowed for the host. */
const HOST_AND_PORT = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/;

/** True when `auth` sets any TLS or auth field. */
export function setsWebhookAuth(auth: WebhookAuth): boolean {
  return AUTH_KEYS.some((key) => auth[key] !== undefined);
}

/** Only the four auth fields of `source` (a webhook carries others). */
function authOf(source: WebhookAuth): WebhookAuth {
  const auth: WebhookAuth = {};
  for (const key of AUTH_KEYS) {
    if (source[key] !== undefined) Object.assign(auth, { [key]: source[key] });
  }
  return auth;
}

/** `hostname:port` with the scheme's default port filled in, lower-cased; `undefined` for an unusable URL. */
function canonicalUrlHost(url: string): { hostPort: string; defaultPort: string | undefined } | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  const defaultPort = DEFAULT_PORTS[parsed.protocol];
  const port = parsed.port || defaultPort;
  if (port === undefined) return undefined;
  return { hostPort: `${parsed.hostname.toLowerCase()}:${port}`, defaultPort };
}

/** An entry's `host` as `hostname:port` for a URL whose scheme's default port is `defaultPort`. */
function canonicalEntryHost(host: string, defaultPort: string | undefined): string | undefined {
  const match = HOST_AND_PORT.exec(host.toLowerCase());
  if (!match?.[1]) return undefined;
  const port = match[2] ?? defaultPort;
  return port === undefined ? undefined : `${match[1]}:${Number(port)}`;
}

/**
 * The index of the first entry whose `host` matches the host of `url`, or `undefined`. An entry that
 * names a URL (`https://…`) or a path never matches, as in Metacontroller.
 */
export function matchEndpointConfig(url: string, endpointConfigs: readonly Pick<EndpointConfig, 'host'>[]): number | undefined {
  const target = canonicalUrlHost(url);
  if (target === undefined) return undefined;
  const index = endpointConfigs.findIndex((entry) => canonicalEntryHost(entry.host, target.defaultPort) === target.hostPort);
  return index < 0 ? undefined : index;
}

/** The settings webhook `webhook` (posting to `webhook.url`) uses, given the controller's `endpointConfigs`. */
export function effectiveWebhookAuth(
  webhook: WebhookAuth & { url: string },
  endpointConfigs: readonly EndpointConfig[],
): EffectiveWebhookAuth {
  if (setsWebhookAuth(webhook)) return { auth: authOf(webhook) };
  const index = matchEndpointConfig(webhook.url, endpointConfigs);
  if (index === undefined) return { auth: {} };
  return { auth: authOf(endpointConfigs[index]!), endpointConfigIndex: index };
}
