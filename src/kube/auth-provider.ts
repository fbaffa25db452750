/**
 * The legacy `auth-provider` users (oidc, gcp, azure), the one kind of kubeconfig credential loom does
 * not implement itself: their token refresh flows (an OpenID Connect client, cloud SDK commands) are
 * left to `@kubernetes/client-node`. It is imported only when such a user makes its first request,
 * because loading it costs tens of MiB and hundreds of milliseconds that no other user should pay.
 */
import type { RequestOptions } from 'node:https';
import type { KubeConfig as ClientNodeKubeConfig } from '@kubernetes/client-node';
import { heldIdToken } from './held-id-token.ts';
import type { AuthProviderConfig } from './kubeconfig-file.ts';

/** The providers client-node implements; any other name would silently send no credentials. */
const PROVIDERS: readonly string[] = ['oidc', 'gcp', 'azure'];

/** client-node, or an error saying to install it: it is an optional dependency, needed by these users alone. */
async function loadClientNode(provider: string): Promise<typeof import('@kubernetes/client-node')> {
  try {
    return await import('@kubernetes/client-node');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw cause;
    throw new Error(`install @kubernetes/client-node to use auth-provider ${provider} (an optional dependency of loom, not installed here; or use an exec plugin)`, { cause });
  }
}

/**
 * The provider's settings as client-node's oidc provider can use them: it hands `idp-issuer-url` to
 * openid-client's discovery, which takes a URL object only and refuses the kubeconfig's string, so a
 * token refresh would always fail.
 */
function providerConfig(provider: AuthProviderConfig): Record<string, unknown> {
  const issuer = provider.config['idp-issuer-url'];
  if (provider.name !== 'oidc' || issuer === undefined || !URL.canParse(issuer)) return { ...provider.config };
  return { ...provider.config, 'idp-issuer-url': new URL(issuer) };
}

/** A client-node configuration holding only this user; the same one for every request, as the provider keeps its refreshed tokens in it. */
async function clientNodeConfig(server: string, userName: string, provider: AuthProviderConfig): Promise<ClientNodeKubeConfig> {
  const { KubeConfig } = await loadClientNode(provider.name);
  const kc = new KubeConfig();
  kc.loadFromOptions({
    // Only the Authorization header is taken from it, so its own TLS handling must not get in the way
    // (it refuses an http:// server unless TLS verification is off).
    clusters: [{ name: 'cluster', server, skipTLSVerify: true }],
    users: [{ name: userName, authProvider: { name: provider.name, config: providerConfig(provider) } }],
    contexts: [{ name: 'context', cluster: 'cluster', user: userName }],
    currentContext: 'context',
  });
  return kc;
}

/**
 * The authorizer of a user's `auth-provider`: sets a request's `Authorization` header, and hears of
 * the header the API server refused.
 */
export interface AuthProviderAuthorizer {
  authorize(headers: Record<string, unknown>): Promise<void>;
  /**
   * The API server answered 401 to a request that carried `authorization`: it is no longer held, so
   * the request's one resend carries what the provider gives then (client-node refreshes an oidc
   * token it has refreshed before on every ask; one it never refreshed only once its `exp` has passed).
   */
  refused(authorization: unknown): void;
}

/**
 * The authorizer for a user's `auth-provider`; throws at once for a provider nobody implements. An
 * oidc id-token is held here until shortly before its own expiry, on `now`: client-node 2.0.1 records
 * a refreshed token's lifetime in seconds as if it were the time it ends, so once it has refreshed, it
 * would refresh again on every request.
 */
export function authProviderAuthorizer(server: string, userName: string, provider: AuthProviderConfig, now: () => number): AuthProviderAuthorizer {
  if (!PROVIDERS.includes(provider.name)) {
    throw new Error(`user "${userName}": auth-provider "${provider.name}" is not supported (supported: ${PROVIDERS.join(', ')}; or use an exec plugin)`);
  }
  let config: Promise<ClientNodeKubeConfig> | undefined;
  const held = heldIdToken(now);
  return {
    async authorize(headers) {
      const kept = held.current();
      if (kept !== undefined) {
        headers.Authorization = kept;
        return;
      }
      config ??= clientNodeConfig(server, userName, provider);
      const scratch: RequestOptions & { headers: Record<string, unknown> } = { headers: {} };
      await (await config).applyToHTTPSOptions(scratch);
      const { Authorization: authorization } = scratch.headers;
      if (authorization === undefined) return;
      headers.Authorization = authorization;
      if (provider.name === 'oidc') held.keep(authorization);
    },
    refused: (authorization) => held.drop(authorization),
  };
}
