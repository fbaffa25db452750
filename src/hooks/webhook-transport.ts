/**
 * What a webhook request carries besides its body: the `Authorization` header and, for https with a
 * custom CA or client certificate, the agent. Prepared per call from the settings in effect (the
 * webhook's own or a matching `endpointConfigs[]` entry's, see `effectiveWebhookAuth` in `api/`), so
 * rotated credentials are used by the next call; the agent is rebuilt only when the TLS material changed.
 */
import type { Agent } from 'node:https';
import type { WebhookAuth } from '../api/controller-spec.ts';
import { HookError } from './hook-error.ts';
import { credentialKindsOf, resolveCredentials, type CredentialReader } from './webhook-credentials.ts';
import { checkTlsMaterial, createTlsAgents } from './webhook-tls.ts';

/** The TLS and auth settings in effect for one webhook, and what to read their Secrets and ConfigMaps with. */
export interface WebhookSecurity {
  /** The settings in effect; `{}` means none. */
  auth: WebhookAuth;
  /** Field path where they are written (`spec.hooks.sync.webhook`, `spec.endpointConfigs[0]`), for messages. */
  where: string;
  /** Required when the settings refer to a Secret or ConfigMap. */
  reader?: CredentialReader | undefined;
}

/** What one request needs; `release` when the request is over. */
export interface PreparedRequest {
  headers: Record<string, string>;
  agent?: Agent;
  release(): void;
}

/** Prepares the requests of one runner. */
export interface WebhookTransport {
  /** Reads the credentials in effect now. Rejects with a `HookError` (see `resolveCredentials`), or the signal's reason. */
  prepare(signal: AbortSignal): Promise<PreparedRequest>;
  /** Lets go of the agents (once their requests are over). */
  close(): void;
}

const PLAIN: PreparedRequest = { headers: {}, release: () => undefined };

/**
 * The transport of a webhook posting to `url`. Throws a `HookError` at once for settings that can never
 * work: references without a reader, and an inline CA bundle (https) that does not parse.
 */
export function createWebhookTransport(security: WebhookSecurity | undefined, url: URL): WebhookTransport {
  const https = url.protocol === 'https:';
  if (!security) return { prepare: () => Promise.resolve(PLAIN), close: () => undefined };
  const { auth, where, reader } = security;
  const kinds = credentialKindsOf(auth, https);
  if (kinds.size > 0 && !reader) throw new HookError(`${where} refers to a ${[...kinds].join(' and a ')}, but no reader was given`);
  const inline = auth.caBundle?.inline;
  if (https && inline !== undefined) checkTlsMaterial({ ca: { pem: Buffer.from(inline, 'utf8'), source: `${where}.caBundle.inline` } });
  const agents = createTlsAgents();
  return {
    async prepare(signal) {
      const credentials = await resolveCredentials(auth, { where, https, reader, signal });
      const lease = credentials.tls && agents.lease(credentials.tls);
      return {
        headers: credentials.authorization === undefined ? {} : { Authorization: credentials.authorization },
        ...(lease ? { agent: lease.agent } : {}),
        release: () => lease?.release(),
      };
    },
    close: () => agents.close(),
  };
}
