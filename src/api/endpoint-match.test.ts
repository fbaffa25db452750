import { describe, expect, it } from 'vitest';
import type { EndpointConfig, WebhookAuth } from './controller-spec.ts';
import { effectiveWebhookAuth, matchEndpointConfig, setsWebhookAuth } from './endpoint-match.ts';

describe('matchEndpointConfig', () => {
  it.each<[string, string, string, boolean]>([
    // [case, hook URL, entry host, matches]
    ['same host', 'https://hooks.example.com/sync', 'hooks.example.com', true],
    ['host differs in case', 'https://Hooks.Example.COM/sync', 'HOOKS.example.com', true],
    ['a different host', 'https://hooks.example.com/sync', 'other.example.com', false],
    ['a suffix of the host is not the host', 'https://hooks.example.com/sync', 'example.com', false],
    ['https URL without port, entry with :443', 'https://hooks.example.com/sync', 'hooks.example.com:443', true],
    ['https URL with :443, entry without port', 'https://hooks.example.com:443/sync', 'hooks.example.com', true],
    ['http URL without port, entry with :80', 'http://hooks.example.com/sync', 'hooks.example.com:80', true],
    ['http URL with :80, entry without port', 'http://hooks.example.com:80/sync', 'hooks.example.com', true],
    ['http URL, entry with :443', 'http://hooks.example.com/sync', 'hooks.example.com:443', false],
    ['https URL, entry with :80', 'https://hooks.example.com/sync', 'hooks.example.com:80', false],
    ['URL with another port, entry without port', 'https://hooks.example.com:8443/sync', 'hooks.example.com', false],
    ['URL with another port, entry with that port', 'https://hooks.example.com:8443/sync', 'hooks.example.com:8443', true],
    ['URL with another port, entry with a different port', 'https://hooks.example.com:8443/sync', 'hooks.example.com:9443', false],
    ['service form, default port 80', 'http://widgets.hooks:80/sync', 'widgets.hooks', true],
    ['service form, default port 80, entry with :80', 'http://widgets.hooks:80/sync', 'widgets.hooks:80', true],
    ['service form over https on port 80', 'https://widgets.hooks:80/sync', 'widgets.hooks', false],
    ['service form over https on port 80, entry with :80', 'https://widgets.hooks:80/sync', 'widgets.hooks:80', true],
    ['service form on 8443', 'https://widgets.hooks:8443/sync', 'widgets.hooks:8443', true],
    ['service form with .svc in the entry', 'https://widgets.hooks:8443/sync', 'widgets.hooks.svc:8443', false],
    ['IP address with port', 'https://127.0.0.1:8443/sync', '127.0.0.1:8443', true],
    ['IPv6 literal with port', 'https://[::1]:8443/sync', '[::1]:8443', true],
    ['IPv6 literal without port', 'https://[::1]/sync', '[::1]', true],
    ['entry written as a URL never matches', 'https://hooks.example.com/sync', 'https://hooks.example.com', false],
    ['entry with a path never matches', 'https://hooks.example.com/sync', 'hooks.example.com/sync', false],
    ['credentials in the URL do not count', 'https://user:pw@hooks.example.com/sync', 'hooks.example.com', true],
    ['an unusable URL matches nothing', 'not a url', 'hooks.example.com', false],
  ])('%s', (_case, url, host, matches) => {
    expect(matchEndpointConfig(url, [{ host }])).toBe(matches ? 0 : undefined);
  });

  it('takes the first matching entry', () => {
    const entries = [{ host: 'a.example.com' }, { host: 'B.example.com:443' }, { host: 'b.example.com' }];
    expect(matchEndpointConfig('https://b.example.com/sync', entries)).toBe(1);
  });
});

describe('effectiveWebhookAuth', () => {
  const token = { type: 'Bearer', secretRef: { name: 'token', namespace: 'hooks', key: 'token' } };
  const entryAuth: WebhookAuth = {
    caBundle: { configMapRef: { name: 'ca', namespace: 'hooks', key: 'ca.crt' } },
    authorization: token,
  };
  const configs: EndpointConfig[] = [
    { host: 'other.example.com', basicAuth: { secretRef: { name: 'b', namespace: 'hooks' }, usernameKey: 'username', passwordKey: 'password' } },
    { host: 'hooks.example.com', ...entryAuth },
  ];

  it('uses the first matching entry when the webhook sets nothing', () => {
    expect(effectiveWebhookAuth({ url: 'https://hooks.example.com/sync' }, configs)).toEqual({ auth: entryAuth, endpointConfigIndex: 1 });
  });

  it('uses nothing when no entry matches', () => {
    expect(effectiveWebhookAuth({ url: 'https://elsewhere.example.com/sync' }, configs)).toEqual({ auth: {} });
  });

  it.each<[string, WebhookAuth]>([
    ['caBundle', { caBundle: { inline: 'pem' } }],
    ['clientTLS', { clientTLS: { secretRef: { name: 'c', namespace: 'hooks' }, certKey: 'tls.crt', privateKeyKey: 'tls.key' } }],
    ['authorization', { authorization: token }],
    ['basicAuth', { basicAuth: { secretRef: { name: 'b', namespace: 'hooks' }, usernameKey: 'u', passwordKey: 'p' } }],
  ])("uses only the webhook's own settings when it sets %s (no merge with a matching entry)", (_field, own) => {
    const webhook = { url: 'https://hooks.example.com/sync', timeoutMs: 10_000, ...own };
    expect(effectiveWebhookAuth(webhook, configs)).toEqual({ auth: own });
  });

  it('tells whether settings are present', () => {
    expect(setsWebhookAuth({})).toBe(false);
    expect(setsWebhookAuth({ authorization: token })).toBe(true);
  });
});
