/**
 * The legacy `auth-provider` users (oidc, gcp, azure), the one kind of kubeconfig credential loom does
 * not implement itself: their token refresh flows (an OpenID Connect client, cloud SDK commands) are
 * left to `@kubernetes/client-node`. It is imported only when such a user makes its first request,
 * because loading it costs tens of MiB and hundreds of milliseconds that no other user should pay.
 */
import type { RequestOptions } from 'node:https';
import type { KubeConfig as ClientNodeKubeConfig } from '@kubernetes/client-node';
import type { AuthProviderConfig } from './kubeconfig-file.ts';

/** The providers client-node implements; any other name would silently send no credentials. */
const PROVIDERS: readonly string[] = ['oidc', 'gcp', 'azure'];

/** Sets the `Authorization` header of a request for an `auth-provider` user. */
export type AuthProviderAuthorizer = (headers: Record<string, unknown>) => Promise<void>;

/** A client-node configuration holding only this user; the same one for every request, as the provider keeps its refreshed tokens in it. */
async function clientNodeConfig(server: string, userName: string, provider: AuthProviderConfig): Promise<ClientNodeKubeConfig> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    // Only the Authorization header is taken from it, so its own TLS handling must not get in the way
    // (it refuses an http:// server unless TLS verification is off).
    clusters: [{ name: 'cluster', server, skipTLSVerify: true }],
    users: [{ name: userName, authProvider: { name: provider.name, config: { ...provider.config } } }],
    contexts: [{ name: 'context', cluster: 'cluster', user: userName }],
    currentContext: 'context',
  });
  return kc;
}

/** The authorizer for a user's `auth-provider`; throws at once for a provider nobody implements. */
export function authProviderAuthorizer(server: string, userName: string, provider: AuthProviderConfig): AuthProviderAuthorizer {
  if (!PROVIDERS.includes(provider.name)) {
    throw new Error(`user "${userName}": auth-provider "${provider.name}" is not supported (supported: ${PROVIDERS.join(', ')}; or use an exec plugin)`);
  }
  let config: Promise<ClientNodeKubeConfig> | undefined;
  return async (headers) => {
    config ??= clientNodeConfig(server, userName, provider);
    const scratch: RequestOptions & { headers: Record<string, unknown> } = { headers: {} };
    await (await config).applyToHTTPSOptions(scratch);
    if (scratch.headers.Authorization !== undefined) headers.Authorization = scratch.headers.Authorization;
  };
}
