import { describe, expect, it } from 'vitest';
import type { CompositeControllerSpec, DecoratorControllerSpec } from './controller-spec.ts';
import { parseCompositeController, parseDecoratorController, type ParseResult } from './parse-controller.ts';
import { fixture, withField } from './testdata/load.test-support.ts';
import { minimalComposite, minimalDecorator } from './testdata/manifests.test-support.ts';

function valueOf<T>(result: ParseResult<T>): T {
  if (!result.ok) throw new Error(`expected a valid controller, got ${JSON.stringify(result.problems)}`);
  return result.value;
}

describe('parseCompositeController: valid manifests', () => {
  it('parses the catset example from the Metacontroller docs and applies the defaults', () => {
    const input = fixture('catset-controller.yaml');
    const result = parseCompositeController(input);
    const value = valueOf(result);
    expect(value.name).toBe('catset-controller');
    expect(value.object).toBe(input);
    expect(value.spec).toEqual<CompositeControllerSpec>({
      parentResource: {
        apiVersion: 'ctl.enisoc.com/v1',
        resource: 'catsets',
        revisionHistory: { fieldPaths: ['spec.template'] },
        ignoreStatusChanges: false,
      },
      childResources: [
        {
          apiVersion: 'v1',
          resource: 'pods',
          updateStrategy: { method: 'RollingRecreate', statusChecks: { conditions: [{ type: 'Ready', status: 'True' }] } },
        },
        { apiVersion: 'v1', resource: 'persistentvolumeclaims', updateStrategy: { method: 'OnDelete', statusChecks: { conditions: [] } } },
      ],
      hooks: {
        sync: {
          version: 'v1',
          webhook: {
            url: 'http://catset-controller.metacontroller/sync',
            timeoutMs: 10_000,
            etag: { enabled: false },
            responseUnMarshallMode: 'loose',
          },
        },
      },
      generateSelector: false,
      endpointConfigs: [],
    });
    expect(result.warnings).toEqual([]);
  });

  it('parses a manifest that sets every field without warnings', () => {
    const result = parseCompositeController(fixture('composite-every-field.yaml'));
    const spec = valueOf(result).spec;
    expect(result.warnings.map((w) => w.path)).toEqual(['spec.hooks.preUpdateChild', 'spec.hooks.postUpdateChild']);
    expect(spec.resyncPeriodSeconds).toBe(30);
    expect(spec.parentResource.labelSelector).toEqual({
      matchLabels: { tier: 'web' },
      matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'staging'] }],
    });
    expect(spec.hooks.sync).toMatchObject({
      version: 'v2',
      webhook: {
        timeoutMs: 90_000,
        responseUnMarshallMode: 'loose',
        etag: { enabled: true, cacheTimeoutSeconds: 60, cacheCleanupSeconds: 120 },
        authorization: { type: 'Token', secretRef: { name: 'hook-token', namespace: 'hooks', key: 'token' } },
        clientTLS: { secretRef: { name: 'client-tls', namespace: 'hooks' }, certKey: 'cert.pem', privateKeyKey: 'key.pem' },
      },
    });
    expect(spec.hooks.finalize?.webhook?.url).toBe('https://widgets.hooks:8443/finalize');
    expect(spec.hooks.customize).toEqual({ version: 'v1', jsonata: { expression: '{"relatedResources": []}', timeoutMs: 250 } });
    expect(spec.hooks.preUpdateChild).toEqual({
      version: 'v1',
      jsonata: { configMapRef: { namespace: 'hooks', name: 'hook-code', key: 'pre.jsonata' }, timeoutMs: 1_000 },
    });
    // CRD-level defaults are applied in code too, for manifests that never met the API server.
    expect(spec.endpointConfigs[0]).toMatchObject({
      authorization: { type: 'Bearer' },
      clientTLS: { certKey: 'tls.crt', privateKeyKey: 'tls.key' },
    });
    expect(spec.endpointConfigs[1]).toMatchObject({
      caBundle: { secretRef: { key: 'ca.crt' } },
      basicAuth: { usernameKey: 'username', passwordKey: 'password' },
    });
  });

  it('accepts an object without apiVersion and kind (list items may lack them)', () => {
    const input = withField(withField(minimalComposite, 'apiVersion', undefined), 'kind', undefined);
    expect(parseCompositeController(input).ok).toBe(true);
  });
});

describe('parseCompositeController: defaults', () => {
  const parse = (path: string, value: unknown): CompositeControllerSpec =>
    valueOf(parseCompositeController(withField(minimalComposite, path, value))).spec;

  it('builds the service URL with port 80 and protocol http', () => {
    const spec = parse('spec.hooks.sync.webhook', { service: { name: 'hook', namespace: 'tools' }, path: '/sync' });
    expect(spec.hooks.sync?.webhook).toMatchObject({
      url: 'http://hook.tools:80/sync',
      service: { name: 'hook', namespace: 'tools', port: 80, protocol: 'http' },
      path: '/sync',
    });
  });

  it('decodes v2 hooks strictly unless told otherwise', () => {
    expect(parse('spec.hooks.sync.version', 'v2').hooks.sync?.webhook?.responseUnMarshallMode).toBe('strict');
    const loose = withField(withField(minimalComposite, 'spec.hooks.sync.version', 'v2'), 'spec.hooks.sync.webhook.responseUnMarshallMode', 'loose');
    expect(valueOf(parseCompositeController(loose)).spec.hooks.sync?.webhook?.responseUnMarshallMode).toBe('loose');
  });

  it('parses the webhook timeout into milliseconds', () => {
    expect(parse('spec.hooks.sync.webhook.timeout', '1.5s').hooks.sync?.webhook?.timeoutMs).toBe(1_500);
  });

  it('gives JSONata hooks a 1s budget', () => {
    expect(parse('spec.hooks.sync', { jsonata: { expression: '{}' } }).hooks.sync).toEqual({
      version: 'v1',
      jsonata: { expression: '{}', timeoutMs: 1_000 },
    });
  });

  it('treats an empty update method and an empty fieldPaths list as unset', () => {
    const spec = valueOf(
      parseCompositeController(
        withField(withField(minimalComposite, 'spec.childResources[0].updateStrategy.method', ''), 'spec.parentResource.revisionHistory.fieldPaths', []),
      ),
    ).spec;
    expect(spec.childResources[0]?.updateStrategy.method).toBe('OnDelete');
    expect(spec.parentResource.revisionHistory.fieldPaths).toEqual(['spec']);
  });

  it.each([0, -5])('raises resyncPeriodSeconds %d to 1 with a warning', (seconds) => {
    const result = parseCompositeController(withField(minimalComposite, 'spec.resyncPeriodSeconds', seconds));
    expect(valueOf(result).spec.resyncPeriodSeconds).toBe(1);
    expect(result.warnings).toEqual([{ path: 'spec.resyncPeriodSeconds', message: 'below 1s; raised to 1s' }]);
  });

  it('caps a resyncPeriodSeconds longer than a timer can wait (it would fire at once, again and again), and says so', () => {
    const result = parseCompositeController(withField(minimalComposite, 'spec.resyncPeriodSeconds', 2_147_483_647));
    expect(valueOf(result).spec.resyncPeriodSeconds).toBe(2_147_483);
    expect(result.warnings).toEqual([{ path: 'spec.resyncPeriodSeconds', message: 'longer than a timer can wait (about 24 days); using that instead' }]);
  });

  it('replaces a non-positive webhook timeout with 10s and says so', () => {
    const result = parseCompositeController(withField(minimalComposite, 'spec.hooks.sync.webhook.timeout', '0s'));
    expect(valueOf(result).spec.hooks.sync?.webhook?.timeoutMs).toBe(10_000);
    expect(result.warnings.map((w) => w.path)).toEqual(['spec.hooks.sync.webhook.timeout']);
  });

  it('caps a webhook timeout longer than a timer can wait, and says so', () => {
    const result = parseCompositeController(withField(minimalComposite, 'spec.hooks.sync.webhook.timeout', '720h'));
    expect(valueOf(result).spec.hooks.sync?.webhook?.timeoutMs).toBe(2_147_483_647);
    expect(result.warnings).toEqual([{ path: 'spec.hooks.sync.webhook.timeout', message: 'longer than a timer can wait (about 24 days); using that instead' }]);
  });
});

describe('parseCompositeController: warnings', () => {
  it('warns about unknown fields (a typo would otherwise be pruned silently)', () => {
    const result = parseCompositeController(withField(minimalComposite, 'spec.hooks.sync.webhook.responseUnmarshallMode', 'strict'));
    expect(result.ok).toBe(true);
    expect(result.warnings).toEqual([{ path: 'spec.hooks.sync.webhook.responseUnmarshallMode', message: 'unknown field; ignored (did you mean responseUnMarshallMode?)' }]);
  });

  it('warns that a controller with a finalize hook but no sync hook fails every sync of a live parent', () => {
    const finalizeOnly = withField(withField(minimalComposite, 'spec.hooks.finalize', { jsonata: { expression: '{ "finalized": true }' } }), 'spec.hooks.sync', undefined);
    const result = parseCompositeController(finalizeOnly);
    expect(result.ok).toBe(true);
    expect(result.warnings).toEqual([{ path: 'spec.hooks.sync', message: 'not set: every sync of a parent that is not being deleted fails; only the finalize hook is called' }]);
    expect(parseCompositeController(withField(finalizeOnly, 'spec.hooks.sync', null)).warnings.map((w) => w.path)).toEqual(['spec.hooks.sync']);
  });

  it('warns about status checks on a method that never reads them', () => {
    const checks = { conditions: [{ type: 'Ready', status: 'True' }] };
    const result = parseCompositeController(withField(minimalComposite, 'spec.childResources[0].updateStrategy', { method: 'InPlace', statusChecks: checks }));
    expect(result.warnings).toEqual([{ path: 'spec.childResources[0].updateStrategy.statusChecks', message: 'only RollingRecreate and RollingInPlace use status checks; ignored with InPlace' }]);
    expect(parseCompositeController(withField(minimalComposite, 'spec.childResources[0].updateStrategy', { method: 'RollingInPlace', statusChecks: checks })).warnings).toEqual([]);
  });

  it('warns that url wins over service and path', () => {
    const result = parseCompositeController(withField(minimalComposite, 'spec.hooks.sync.webhook.path', '/ignored'));
    expect(valueOf(result).spec.hooks.sync?.webhook?.url).toBe('http://widgets.hooks/sync');
    expect(result.warnings.map((w) => w.path)).toEqual(['spec.hooks.sync.webhook.url']);
  });
});

describe('parseDecoratorController', () => {
  it('parses the service-per-pod example from the Metacontroller docs and applies the defaults', () => {
    const result = parseDecoratorController(fixture('service-per-pod.yaml'));
    const hook = (path: string): unknown => ({
      version: 'v1',
      webhook: { url: `http://service-per-pod.metacontroller/${path}`, timeoutMs: 10_000, etag: { enabled: false }, responseUnMarshallMode: 'loose' },
    });
    expect(valueOf(result).spec).toEqual<DecoratorControllerSpec>({
      resources: [
        {
          apiVersion: 'apps/v1',
          resource: 'statefulsets',
          annotationSelector: {
            matchExpressions: [
              { key: 'service-per-pod-label', operator: 'Exists' },
              { key: 'service-per-pod-ports', operator: 'Exists' },
            ],
          },
          ignoreStatusChanges: false,
        },
      ],
      attachments: [{ apiVersion: 'v1', resource: 'services', updateStrategy: { method: 'OnDelete' } }],
      hooks: { sync: hook('sync-service-per-pod') as never, finalize: hook('finalize-service-per-pod') as never },
      endpointConfigs: [],
    });
    expect(result.warnings).toEqual([]);
  });

  it.each(['decorator-every-field.yaml', 'decorator-jsonata.yaml'])('parses %s without warnings', (name) => {
    const result = parseDecoratorController(fixture(name));
    expect(result.ok).toBe(true);
    expect(result.warnings).toEqual([]);
  });

  it('reads annotation selectors, JSONata timeouts and the resync period', () => {
    const spec = valueOf(parseDecoratorController(fixture('decorator-every-field.yaml'))).spec;
    expect(spec.resources[0]?.annotationSelector).toEqual({
      matchAnnotations: { 'example.com/decorate': 'true' },
      matchExpressions: [
        { key: 'example.com/ports', operator: 'Exists' },
        { key: 'example.com/tier', operator: 'In', values: ['web'] },
      ],
    });
    expect(spec.hooks.customize?.jsonata?.timeoutMs).toBe(2_000);
    expect(spec.resyncPeriodSeconds).toBe(5);
  });

  it('warns about composite-only fields', () => {
    const result = parseDecoratorController(withField(minimalDecorator, 'spec.generateSelector', true));
    expect(result.ok).toBe(true);
    expect(result.warnings).toEqual([{ path: 'spec.generateSelector', message: 'unknown field; ignored' }]);
  });
});

describe('parse controllers: TLS and auth settings', () => {
  const token = { secretRef: { name: 't', namespace: 'n', key: 'k' } };
  const problemsOf = (input: unknown) => {
    const result = parseCompositeController(input);
    return result.ok ? [] : result.problems;
  };

  it.each(([
    ['an auth scheme with a space', 'spec.hooks.sync.webhook.authorization', { ...token, type: 'Bearer token' }, 'spec.hooks.sync.webhook.authorization.type', 'expected an HTTP auth scheme'],
    ['an auth scheme with a colon', 'spec.endpointConfigs', [{ host: 'h', authorization: { ...token, type: 'Bearer:' } }], 'spec.endpointConfigs[0].authorization.type', 'expected an HTTP auth scheme'],
    ['an inline CA that is not PEM', 'spec.hooks.sync.webhook.caBundle', { inline: 'MIIBszCCAVmgAwIBAgIU' }, 'spec.hooks.sync.webhook.caBundle.inline', 'expected PEM text with a -----BEGIN CERTIFICATE----- block'],
    ['a base64-encoded inline CA', 'spec.endpointConfigs', [{ host: 'h', caBundle: { inline: Buffer.from('-----BEGIN CERTIFICATE-----\n').toString('base64') } }], 'spec.endpointConfigs[0].caBundle.inline', 'looks base64-encoded'],
  ] as [string, string, unknown, string, string][]).map(([name, path, value, problemPath, message]) => ({ name, path, value, problemPath, message })))(
    'rejects $name', ({ path, value, problemPath, message }) => {
    expect(problemsOf(withField(minimalComposite, path, value))).toEqual([{ path: problemPath, message: expect.stringContaining(message) as string }]);
  });

  it.each(['Bearer', 'Token', 'DPoP', 'X-Api-Key'])('accepts auth scheme %s', (type) => {
    expect(problemsOf(withField(minimalComposite, 'spec.hooks.sync.webhook.authorization', { ...token, type }))).toEqual([]);
  });

  it('does not pile a PEM complaint onto a caBundle with two sources', () => {
    const input = withField(minimalComposite, 'spec.hooks.sync.webhook.caBundle', { inline: 'x', secretRef: { name: 's', namespace: 'n' } });
    expect(problemsOf(input).map((p) => p.path)).toEqual(['spec.hooks.sync.webhook.caBundle']);
  });

  it.each<[string, string]>([
    ['https://hooks.example.com', 'not a host or host:port'],
    ['hooks.example.com/sync', 'not a host or host:port'],
    ['user@hooks.example.com', 'not a host or host:port'],
  ])('warns that endpointConfigs host %s never matches', (host, message) => {
    const result = parseCompositeController(withField(minimalComposite, 'spec.endpointConfigs', [{ host, authorization: token }]));
    expect(result.ok).toBe(true);
    expect(result.warnings).toEqual([{ path: 'spec.endpointConfigs[0].host', message: expect.stringContaining(message) as string }]);
  });

  it.each(['hooks.example.com', 'hooks.example.com:8443', '127.0.0.1:8443', '[::1]:8443', 'widgets.hooks'])('accepts endpointConfigs host %s', (host) => {
    const result = parseCompositeController(withField(minimalComposite, 'spec.endpointConfigs', [{ host, authorization: token }]));
    expect(result.warnings).toEqual([]);
  });

  it('warns about an endpointConfigs host an earlier entry already names', () => {
    const configs = [{ host: 'a.example.com', authorization: token }, { host: 'b.example.com' }, { host: 'A.example.com', authorization: token }];
    const result = parseDecoratorController(withField(minimalDecorator, 'spec.endpointConfigs', configs));
    expect(result.ok).toBe(true);
    expect(result.warnings).toEqual([{ path: 'spec.endpointConfigs[2].host', message: 'same host as endpointConfigs[0]; only the first matching entry is used' }]);
  });

  it('checks decorator webhooks too', () => {
    const input = withField(minimalDecorator, 'spec.hooks.finalize', { webhook: { url: 'https://h/f', authorization: { ...token, type: 'a b' } } });
    const result = parseDecoratorController(input);
    expect(result.ok ? [] : result.problems.map((p) => p.path)).toEqual(['spec.hooks.finalize.webhook.authorization.type']);
  });
});

describe('related objects and hook versions', () => {
  const withHooks = (base: typeof minimalComposite | typeof minimalDecorator, hooks: object) => ({ ...base, spec: { ...base.spec, hooks } });
  const customizeV2 = { version: 'v2', jsonata: { expression: '{ "relatedResources": [] }' } };

  it.each([
    ['CompositeController', () => parseCompositeController(withHooks(minimalComposite, { customize: customizeV2, sync: { version: 'v1', jsonata: { expression: '{}' } } }))],
    ['DecoratorController', () => parseDecoratorController(withHooks(minimalDecorator, { customize: customizeV2, finalize: { jsonata: { expression: '{}' } }, sync: { version: 'v2', jsonata: { expression: '{}' } } }))],
  ])('warns on a %s whose v1 sync or finalize hook would drop what a v2 customize hook picks', (_, parse) => {
    const result = parse();
    expect(result.ok).toBe(true);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]?.message).toMatch(/^v1 while customize is v2/);
    expect(result.warnings[0]?.path).toMatch(/^spec\.hooks\.(sync|finalize)\.version$/);
  });

  it('does not warn when the versions agree, or customize is v1', () => {
    const agree = parseCompositeController(withHooks(minimalComposite, { customize: customizeV2, sync: { version: 'v2', jsonata: { expression: '{}' } } }));
    const v1 = parseCompositeController(withHooks(minimalComposite, { customize: { jsonata: { expression: '{}' } }, sync: { jsonata: { expression: '{}' } } }));
    expect([agree.warnings, v1.warnings]).toEqual([[], []]);
  });
});
