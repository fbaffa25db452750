import { describe, expect, it } from 'vitest';
import type { FieldProblem } from './field-reader.ts';
import { parseCompositeController, parseDecoratorController, type ParseResult } from './parse-controller.ts';
import { withField } from './testdata/load.test-support.ts';
import { minimalComposite, minimalDecorator } from './testdata/manifests.test-support.ts';

function problemsOf(result: ParseResult<unknown>): FieldProblem[] {
  if (result.ok) throw new Error('expected problems, got a valid controller');
  return result.problems;
}

/** One invalid-manifest case: set `path` to `value`, expect exactly one problem at `problemPath`. */
interface ProblemCase {
  name: string;
  path: string;
  value: unknown;
  problemPath: string;
  message: string;
}

function problemCases(rows: [string, string, unknown, string, string][]): ProblemCase[] {
  return rows.map(([name, path, value, problemPath, message]) => ({ name, path, value, problemPath, message }));
}

describe('parseCompositeController: problems', () => {
  const authorization = { secretRef: { name: 't', namespace: 'n', key: 'k' } };
  const basicAuth = { secretRef: { name: 'b', namespace: 'n' } };

  it.each(problemCases([
    ['wrong apiVersion', 'apiVersion', 'apps/v1', 'apiVersion', 'expected metacontroller.k8s.io/v1alpha1'],
    ['wrong kind', 'kind', 'DecoratorController', 'kind', 'expected CompositeController'],
    ['no name', 'metadata.name', undefined, 'metadata.name', 'is required'],
    ['no spec', 'spec', undefined, 'spec', 'is required'],
    ['no parentResource', 'spec.parentResource', undefined, 'spec.parentResource', 'is required'],
    ['no parent apiVersion', 'spec.parentResource.apiVersion', undefined, 'spec.parentResource.apiVersion', 'is required'],
    ['parent resource not a string', 'spec.parentResource.resource', 7, 'spec.parentResource.resource', 'expected a string'],
    ['empty parent resource', 'spec.parentResource.resource', '', 'spec.parentResource.resource', 'expected a non-empty string'],
    ['unknown selector operator', 'spec.parentResource.labelSelector.matchExpressions', [{ key: 'a', operator: 'Near' }], 'spec.parentResource.labelSelector.matchExpressions[0].operator', 'expected one of In, NotIn, Exists, DoesNotExist'],
    ['In without values', 'spec.parentResource.labelSelector.matchExpressions', [{ key: 'a', operator: 'In' }], 'spec.parentResource.labelSelector.matchExpressions[0].values', 'needs at least one value'],
    ['Exists with values', 'spec.parentResource.labelSelector.matchExpressions', [{ key: 'a', operator: 'Exists', values: ['x'] }], 'spec.parentResource.labelSelector.matchExpressions[0].values', 'takes no values'],
    ['matchLabels value not a string', 'spec.parentResource.labelSelector.matchLabels', { 'app.kubernetes.io/name': 1 }, 'spec.parentResource.labelSelector.matchLabels["app.kubernetes.io/name"]', 'expected a string'],
    ['fieldPaths not a list', 'spec.parentResource.revisionHistory.fieldPaths', 'spec', 'spec.parentResource.revisionHistory.fieldPaths', 'expected an array'],
    ['fieldPaths item not a string', 'spec.parentResource.revisionHistory.fieldPaths', ['spec', 3], 'spec.parentResource.revisionHistory.fieldPaths[1]', 'expected a string'],
    ['ignoreStatusChanges not a boolean', 'spec.parentResource.ignoreStatusChanges', 'yes', 'spec.parentResource.ignoreStatusChanges', 'expected a boolean'],
    ['childResources not a list', 'spec.childResources', { apiVersion: 'v1' }, 'spec.childResources', 'expected an array'],
    ['child rule not an object', 'spec.childResources[0]', 'pods', 'spec.childResources[0]', 'expected an object'],
    ['child rule without resource', 'spec.childResources[0].resource', undefined, 'spec.childResources[0].resource', 'is required'],
    ['unknown update method', 'spec.childResources[0].updateStrategy.method', 'Rolling', 'spec.childResources[0].updateStrategy.method', 'expected one of OnDelete, Recreate, InPlace, RollingRecreate, RollingInPlace; got "Rolling"'],
    ['update method in the wrong case', 'spec.childResources[0].updateStrategy.method', 'inplace', 'spec.childResources[0].updateStrategy.method', 'expected one of'],
    ['status check without type', 'spec.childResources[0].updateStrategy.statusChecks.conditions', [{ status: 'True' }], 'spec.childResources[0].updateStrategy.statusChecks.conditions[0].type', 'is required'],
    ['fractional resync period', 'spec.resyncPeriodSeconds', 1.5, 'spec.resyncPeriodSeconds', 'expected an integer'],
    ['resync period as a string', 'spec.resyncPeriodSeconds', '30', 'spec.resyncPeriodSeconds', 'expected an integer'],
    ['generateSelector not a boolean', 'spec.generateSelector', 'true', 'spec.generateSelector', 'expected a boolean'],
    ['no hooks', 'spec.hooks', undefined, 'spec.hooks', 'is required'],
    ['hook not an object', 'spec.hooks.sync', 'http://x', 'spec.hooks.sync', 'expected an object'],
    ['hook with both kinds', 'spec.hooks.sync.jsonata', { expression: '{}' }, 'spec.hooks.sync', 'set exactly one of webhook and jsonata, not both'],
    ['hook with neither kind', 'spec.hooks.sync', { version: 'v1' }, 'spec.hooks.sync', 'set exactly one of webhook and jsonata'],
    ['unknown hook version', 'spec.hooks.sync.version', 'v3', 'spec.hooks.sync.version', 'expected one of v1, v2'],
    ['webhook with no target', 'spec.hooks.sync.webhook', {}, 'spec.hooks.sync.webhook', 'set url, or service and path'],
    ['webhook with service but no path', 'spec.hooks.sync.webhook', { service: { name: 'h', namespace: 'n' } }, 'spec.hooks.sync.webhook', 'set url, or service and path'],
    ['webhook with path but no service', 'spec.hooks.sync.webhook', { path: '/sync' }, 'spec.hooks.sync.webhook', 'set url, or service and path'],
    ['path not a string', 'spec.hooks.sync.webhook', { service: { name: 'h', namespace: 'n' }, path: 5 }, 'spec.hooks.sync.webhook.path', 'expected a string'],
    ['url not a string', 'spec.hooks.sync.webhook.url', ['http://h/s'], 'spec.hooks.sync.webhook.url', 'expected a string'],
    ['service not an object', 'spec.hooks.sync.webhook', { service: 'h.n', path: '/s' }, 'spec.hooks.sync.webhook.service', 'expected an object'],
    ['service without namespace', 'spec.hooks.sync.webhook', { service: { name: 'h' }, path: '/s' }, 'spec.hooks.sync.webhook.service.namespace', 'is required'],
    ['service port out of range', 'spec.hooks.sync.webhook', { service: { name: 'h', namespace: 'n', port: 0 }, path: '/s' }, 'spec.hooks.sync.webhook.service.port', 'expected an integer from 1 to 65535'],
    ['url that is not a URL', 'spec.hooks.sync.webhook.url', 'widgets/sync', 'spec.hooks.sync.webhook.url', 'not a valid absolute URL'],
    ['unparsable timeout', 'spec.hooks.sync.webhook.timeout', 'soon', 'spec.hooks.sync.webhook.timeout', 'invalid duration "soon"'],
    ['timeout as a number', 'spec.hooks.sync.webhook.timeout', 10, 'spec.hooks.sync.webhook.timeout', 'expected a string'],
    ['unknown unmarshal mode', 'spec.hooks.sync.webhook.responseUnMarshallMode', 'Strict', 'spec.hooks.sync.webhook.responseUnMarshallMode', 'expected one of loose, strict'],
    ['etag.enabled not a boolean', 'spec.hooks.sync.webhook.etag.enabled', 'yes', 'spec.hooks.sync.webhook.etag.enabled', 'expected a boolean'],
    ['negative etag timeout', 'spec.hooks.sync.webhook.etag.cacheTimeoutSeconds', -1, 'spec.hooks.sync.webhook.etag.cacheTimeoutSeconds', 'expected an integer from 0'],
    ['authorization and basicAuth', 'spec.hooks.sync.webhook', { url: 'http://h/s', authorization, basicAuth }, 'spec.hooks.sync.webhook', 'set at most one of authorization and basicAuth'],
    ['authorization of type basic', 'spec.hooks.sync.webhook.authorization', { ...authorization, type: 'BASIC' }, 'spec.hooks.sync.webhook.authorization.type', 'use basicAuth'],
    ['authorization without secret key', 'spec.hooks.sync.webhook.authorization', { secretRef: { name: 't', namespace: 'n' } }, 'spec.hooks.sync.webhook.authorization.secretRef.key', 'is required'],
    ['basicAuth without secretRef', 'spec.hooks.sync.webhook.basicAuth', {}, 'spec.hooks.sync.webhook.basicAuth.secretRef', 'is required'],
    ['caBundle with two sources', 'spec.hooks.sync.webhook.caBundle', { inline: 'pem', configMapRef: { name: 'c', namespace: 'n' } }, 'spec.hooks.sync.webhook.caBundle', 'set exactly one of inline, secretRef and configMapRef (found 2)'],
    ['caBundle with no source', 'spec.hooks.sync.webhook.caBundle', {}, 'spec.hooks.sync.webhook.caBundle', 'found 0'],
    ['clientTLS secret without name', 'spec.hooks.sync.webhook.clientTLS', { secretRef: { namespace: 'n' } }, 'spec.hooks.sync.webhook.clientTLS.secretRef.name', 'is required'],
    ['jsonata with both sources', 'spec.hooks.sync', { jsonata: { expression: '{}', configMapRef: { name: 'c', namespace: 'n', key: 'k' } } }, 'spec.hooks.sync.jsonata', 'set exactly one of expression and configMapRef'],
    ['jsonata with no source', 'spec.hooks.sync', { jsonata: { timeout: '1s' } }, 'spec.hooks.sync.jsonata', 'set exactly one of expression and configMapRef'],
    ['empty jsonata expression', 'spec.hooks.sync', { jsonata: { expression: '' } }, 'spec.hooks.sync.jsonata.expression', 'expected a non-empty string'],
    ['jsonata configMapRef without key', 'spec.hooks.sync', { jsonata: { configMapRef: { name: 'c', namespace: 'n' } } }, 'spec.hooks.sync.jsonata.configMapRef.key', 'is required'],
    ['zero jsonata timeout', 'spec.hooks.sync', { jsonata: { expression: '{}', timeout: '0s' } }, 'spec.hooks.sync.jsonata.timeout', 'expected a positive duration'],
    ['jsonata timeout over the limit', 'spec.hooks.sync', { jsonata: { expression: '{}', timeout: '31s' } }, 'spec.hooks.sync.jsonata.timeout', 'at most 30s'],
    ['jsonata timeout of centuries', 'spec.hooks.sync', { jsonata: { expression: '{}', timeout: '2562047h' } }, 'spec.hooks.sync.jsonata.timeout', 'at most 30s'],
    ['unparsable jsonata timeout', 'spec.hooks.sync', { jsonata: { expression: '{}', timeout: '1 sec' } }, 'spec.hooks.sync.jsonata.timeout', 'invalid duration "1 sec"'],
    ['bad finalize hook', 'spec.hooks.finalize', {}, 'spec.hooks.finalize', 'set exactly one of webhook and jsonata'],
    ['endpoint config without host', 'spec.endpointConfigs', [{ authorization }], 'spec.endpointConfigs[0].host', 'is required'],
    ['endpoint config with both auths', 'spec.endpointConfigs', [{ host: 'h', authorization, basicAuth }], 'spec.endpointConfigs[0]', 'set at most one of authorization and basicAuth'],
    // What can never name a served type or match a stored label, refused here rather than waited on.
    ['apiVersion with three parts', 'spec.parentResource.apiVersion', 'example.com/v1/extra', 'spec.parentResource.apiVersion', 'expected group/version or version'],
    ['apiVersion with a space', 'spec.childResources[0].apiVersion', 'apps /v1', 'spec.childResources[0].apiVersion', 'expected group/version or version'],
    ['apiVersion with an empty group', 'spec.childResources[0].apiVersion', '/v1', 'spec.childResources[0].apiVersion', 'expected group/version or version'],
    ['apiVersion in capitals', 'spec.parentResource.apiVersion', 'Example.com/V1', 'spec.parentResource.apiVersion', 'expected group/version or version'],
    ['resource in capitals', 'spec.parentResource.resource', 'Widgets', 'spec.parentResource.resource', 'expected a lower-case plural resource name'],
    ['resource with a control character', 'spec.childResources[0].resource', 'pods\u0007', 'spec.childResources[0].resource', 'got "pods\\u0007"'],
    ['resource naming a subresource', 'spec.childResources[0].resource', 'pods/status', 'spec.childResources[0].resource', 'expected a lower-case plural resource name'],
    ['label key with a space', 'spec.parentResource.labelSelector.matchLabels', { 'tier ключ': 'a' }, 'spec.parentResource.labelSelector.matchLabels["tier ключ"]', 'not a valid label key'],
    ['label key with an empty prefix', 'spec.parentResource.labelSelector.matchLabels', { '/tier': 'a' }, 'spec.parentResource.labelSelector.matchLabels["/tier"]', 'not a valid label key'],
    ['label value with a newline', 'spec.parentResource.labelSelector.matchLabels', { tier: 'a\nb' }, 'spec.parentResource.labelSelector.matchLabels.tier', 'not a valid label value'],
    ['label value of 64 characters', 'spec.parentResource.labelSelector.matchLabels', { tier: 'x'.repeat(64) }, 'spec.parentResource.labelSelector.matchLabels.tier', 'not a valid label value'],
    ['expression key starting with a dash', 'spec.parentResource.labelSelector.matchExpressions', [{ key: '-tier', operator: 'Exists' }], 'spec.parentResource.labelSelector.matchExpressions[0].key', 'not a valid label key'],
    ['expression value with a space', 'spec.parentResource.labelSelector.matchExpressions', [{ key: 'tier', operator: 'In', values: ['web', 'not web'] }], 'spec.parentResource.labelSelector.matchExpressions[0].values[1]', 'not a valid label value'],
    ['selector that contradicts itself', 'spec.parentResource.labelSelector', { matchLabels: { tier: 'web' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['web'] }] }, 'spec.parentResource.labelSelector', 'matches no object'],
    ['url with the ftp scheme', 'spec.hooks.sync.webhook.url', 'ftp://widgets.hooks/sync', 'spec.hooks.sync.webhook.url', 'expected an http or https URL; got "ftp:"'],
    ['url with the javascript scheme', 'spec.hooks.sync.webhook.url', 'javascript:alert(1)', 'spec.hooks.sync.webhook.url', 'expected an http or https URL'],
    ['service protocol gopher', 'spec.hooks.sync.webhook', { service: { name: 'h', namespace: 'n', protocol: 'gopher' }, path: '/s' }, 'spec.hooks.sync.webhook.service.protocol', 'expected http or https; got "gopher"'],
    ['child type named twice, in another version', 'spec.childResources[1]', { apiVersion: 'v1beta1', resource: 'pods', updateStrategy: { method: 'Recreate' } }, 'spec.childResources[1]', 'names the same resource as spec.childResources[0] (pods in the core group)'],
    ['no sync and no finalize hook', 'spec.hooks', {}, 'spec.hooks.sync', 'is required: without a sync hook (or a finalize hook) the controller can do nothing'],
    ['sync and finalize hooks null', 'spec.hooks', { sync: null, finalize: null }, 'spec.hooks.sync', 'is required'],
    ['revision field path with an index', 'spec.parentResource.revisionHistory.fieldPaths', ['spec', 'spec.containers[0]'], 'spec.parentResource.revisionHistory.fieldPaths[1]', 'expected a dotted path of field names'],
  ]))('$name', ({ path, value, problemPath, message }) => {
    const problems = problemsOf(parseCompositeController(withField(minimalComposite, path, value)));
    expect(problems).toEqual([{ path: problemPath, message: expect.stringContaining(message) as string }]);
  });

  it('rejects something that is not an object', () => {
    expect(problemsOf(parseCompositeController('widgets'))).toContainEqual({ path: '', message: 'expected an object' });
    expect(problemsOf(parseCompositeController(null))).toContainEqual({ path: '', message: 'is required' });
  });

  it('lists every problem, not just the first', () => {
    let input = withField(minimalComposite, 'metadata.name', '');
    input = withField(input, 'spec.parentResource.resource', undefined);
    input = withField(input, 'spec.childResources[0].updateStrategy.method', 'Sometimes');
    input = withField(input, 'spec.hooks.sync.webhook.timeout', 'later');
    input = withField(input, 'spec.hooks.finalize', { webhook: {}, jsonata: {} });
    expect(problemsOf(parseCompositeController(input)).map((p) => p.path)).toEqual([
      'metadata.name',
      'spec.parentResource.resource',
      'spec.childResources[0].updateStrategy.method',
      'spec.hooks.sync.webhook.timeout',
      'spec.hooks.finalize.webhook',
      'spec.hooks.finalize.jsonata',
      'spec.hooks.finalize',
    ]);
  });
});

describe('parseDecoratorController: problems', () => {
  it.each(problemCases([
    ['wrong kind', 'kind', 'CompositeController', 'kind', 'expected DecoratorController'],
    ['no resources', 'spec.resources', undefined, 'spec.resources', 'is required'],
    ['resource rule without apiVersion', 'spec.resources[0].apiVersion', undefined, 'spec.resources[0].apiVersion', 'is required'],
    ['annotation selector value not a string', 'spec.resources[0].annotationSelector.matchAnnotations', { a: true }, 'spec.resources[0].annotationSelector.matchAnnotations.a', 'expected a string'],
    ['annotation selector NotIn without values', 'spec.resources[0].annotationSelector.matchExpressions', [{ key: 'a', operator: 'NotIn', values: [] }], 'spec.resources[0].annotationSelector.matchExpressions[0].values', 'needs at least one value'],
    ['unknown attachment update method', 'spec.attachments', [{ apiVersion: 'v1', resource: 'services', updateStrategy: { method: 'Replace' } }], 'spec.attachments[0].updateStrategy.method', 'expected one of'],
    ['no hooks', 'spec.hooks', undefined, 'spec.hooks', 'is required'],
    ['jsonata hook with both sources', 'spec.hooks.sync.jsonata.configMapRef', { name: 'c', namespace: 'n', key: 'k' }, 'spec.hooks.sync.jsonata', 'set exactly one of expression and configMapRef'],
    ['customize hook with neither kind', 'spec.hooks.customize', {}, 'spec.hooks.customize', 'set exactly one of webhook and jsonata'],
    ['no resource rules', 'spec.resources', [], 'spec.resources', 'expected at least one resource rule'],
    ['one type named twice', 'spec.resources', [{ apiVersion: 'apps/v1', resource: 'statefulsets' }, { apiVersion: 'apps/v1', resource: 'statefulsets', labelSelector: { matchLabels: { a: 'b' } } }], 'spec.resources[1]', 'same resource as spec.resources[0]'],
    ['attachment apiVersion with a space', 'spec.attachments', [{ apiVersion: 'v1 beta', resource: 'services' }], 'spec.attachments[0].apiVersion', 'expected group/version or version'],
    ['annotation selector that contradicts itself', 'spec.resources[0]', { apiVersion: 'apps/v1', resource: 'statefulsets', annotationSelector: { matchExpressions: [{ key: 'a', operator: 'Exists' }, { key: 'a', operator: 'DoesNotExist' }] } }, 'spec.resources[0].annotationSelector', 'matches no object'],
    ['annotation selector key with a space', 'spec.resources[0].annotationSelector.matchAnnotations', { 'bad key': 'x' }, 'spec.resources[0].annotationSelector.matchAnnotations["bad key"]', 'not a valid annotation key'],
    ['attachment type named twice', 'spec.attachments', [{ apiVersion: 'v1', resource: 'services' }, { apiVersion: 'v1', resource: 'services' }], 'spec.attachments[1]', 'names the same resource as spec.attachments[0]'],
    ['no sync and no finalize hook', 'spec.hooks', { customize: { jsonata: { expression: '{}' } } }, 'spec.hooks.sync', 'is required'],
  ]))('$name', ({ path, value, problemPath, message }) => {
    const problems = problemsOf(parseDecoratorController(withField(minimalDecorator, path, value)));
    expect(problems).toEqual([{ path: problemPath, message: expect.stringContaining(message) as string }]);
  });

  it('takes any annotation value: annotations, unlike labels, hold free text', () => {
    const selector = { matchAnnotations: { 'example.com/note': 'any text / even this' }, matchExpressions: [{ key: 'note', operator: 'In', values: ['a b'] }] };
    expect(parseDecoratorController(withField(minimalDecorator, 'spec.resources[0].annotationSelector', selector)).ok).toBe(true);
  });

});
