/**
 * The id-token of a legacy `auth-provider: oidc` user, as loom holds it between requests: used until
 * 10 s before its `exp` (client-go's margin, so no request leaves with a token about to expire), on
 * the injected clock; and dropped when the API server refuses it, so the request goes once more with
 * whatever the provider gives then. client-node is the provider, as in `loom run`; its token check is
 * counted, and the id-token expires far beyond any real clock, so client-node never refreshes here.
 */
import type { RequestOptions } from 'node:https';
import { KubeConfig as ClientNodeKubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { credentialsFor } from './credentials.ts';
import type { KubeCluster, KubeUser } from './kubeconfig-file.ts';

/** Far beyond any real clock (the year 2033), so only the injected clock can reach it. */
const EXP_SECONDS = 2_000_000_000;
const EXP_MS = EXP_SECONDS * 1000;

const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const idToken = `${part({ alg: 'none' })}.${part({ iss: 'https://issuer.test', sub: 'alice', exp: EXP_SECONDS })}.signature`;

const cluster: KubeCluster = { name: 'c', server: 'https://api.test:6443', insecureSkipTlsVerify: false, extensions: new Map() };
const user: KubeUser = {
  name: 'u',
  authProvider: { name: 'oidc', config: { 'client-id': 'loom', 'id-token': idToken, 'refresh-token': 'refresh-1', 'idp-issuer-url': 'https://issuer.test' } },
};

afterEach(() => {
  vi.restoreAllMocks();
});

/** Credentials on a clock set by hand, and how often client-node was asked for the token. */
function oidcCredentials(): { apply(): Promise<RequestOptions & { headers: Record<string, unknown> }>; refused(opts: RequestOptions): boolean; asked(): number; at(ms: number): void } {
  const asked = vi.spyOn(ClientNodeKubeConfig.prototype, 'applyToHTTPSOptions');
  let now = 0;
  const credentials = credentialsFor(cluster, user, () => now);
  return {
    async apply() {
      const opts = { headers: {} };
      await credentials.apply(opts);
      return opts;
    },
    refused: (opts) => credentials.refused(opts),
    asked: () => asked.mock.calls.length,
    at(ms) {
      now = ms;
    },
  };
}

describe('an oidc user\'s id-token', () => {
  it('is held until 10 s before it expires on the injected clock, then asked for again', async () => {
    const creds = oidcCredentials();
    creds.at(EXP_MS - 60_000);
    expect((await creds.apply()).headers.Authorization).toBe(`Bearer ${idToken}`);
    expect(creds.asked()).toBe(1);
    creds.at(EXP_MS - 10_001);
    expect((await creds.apply()).headers.Authorization).toBe(`Bearer ${idToken}`);
    expect(creds.asked()).toBe(1);
    creds.at(EXP_MS - 10_000);
    await creds.apply();
    expect(creds.asked()).toBe(2);
  });

  it('refused with a 401 is dropped, so the request goes once more with the token asked for anew', async () => {
    const creds = oidcCredentials();
    creds.at(EXP_MS - 60_000);
    const first = await creds.apply();
    expect(creds.asked()).toBe(1);
    expect(creds.refused(first)).toBe(true);
    await creds.apply();
    expect(creds.asked()).toBe(2);
    // Each refusal costs one more ask, never a request sent again with the token just refused.
    expect(creds.refused(first)).toBe(true);
    await creds.apply();
    expect(creds.asked()).toBe(3);
  });
});
