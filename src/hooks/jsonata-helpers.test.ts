import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidSelectorError } from '../api/label-selector.ts';
import { base64decode, base64encode, child, dnsName, hash, JSONATA_HELPERS, matchLabels, ready, readiness } from './jsonata-helpers.ts';
import { compileJsonataHook } from './jsonata-runner.ts';

const DNS_1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Evaluates `expression` through the real runner, so the helpers are tested as bound. */
function evaluate(expression: string, request: unknown = {}): Promise<unknown> {
  const runner = compileJsonataHook({ expression, hook: 'sync', timeoutMs: 1_000, clock: { now: () => 0 } });
  return runner.call(request, new AbortController().signal);
}

describe('$hash', () => {
  it('is the first 16 hex characters of the SHA-256 of canonical JSON', () => {
    const canonical = '{"a":[true,"x",null],"b":{"c":1,"d":"ü"}}';
    const expected = createHash('sha256').update(canonical).digest('hex').slice(0, 16);
    expect(hash({ b: { d: 'ü', c: 1 }, a: [true, 'x', null] })).toBe(expected);
  });

  it.each<[string, unknown, unknown]>([
    ['key order', { a: 1, b: 2 }, { b: 2, a: 1 }],
    ['nested key order', { x: { a: 1, b: [{ c: 1, d: 2 }] } }, { x: { b: [{ d: 2, c: 1 }], a: 1 } }],
    ['absent and undefined fields', { a: 1 }, { a: 1, b: undefined }],
  ])('ignores %s', (_name, left, right) => {
    expect(hash(left)).toBe(hash(right));
  });

  it.each<[string, unknown, unknown]>([
    ['values', { a: 1 }, { a: 2 }],
    ['array order', [1, 2], [2, 1]],
    ['a string and a number', '1', 1],
    ['null and an empty object', null, {}],
  ])('tells apart %s', (_name, left, right) => {
    expect(hash(left)).not.toBe(hash(right));
  });

  it('gives undefined for undefined, and works in an expression', async () => {
    expect(hash(undefined)).toBeUndefined();
    await expect(evaluate('{"same": $hash(parent.spec) = $hash({"b": 2, "a": 1}), "missing": $hash(parent.nothing)}', { parent: { spec: { a: 1, b: 2 } } }))
      .resolves.toEqual({ same: true });
  });
});

describe('$base64encode / $base64decode', () => {
  it.each([
    ['', ''],
    ['hello', 'aGVsbG8='],
    ['grüße', 'Z3LDvMOfZQ=='],
    ['✓ 😀', '4pyTIPCfmIA='],
  ])('encodes %j as the Base64 of its UTF-8 bytes and decodes it back', (text, b64) => {
    expect(base64encode(text)).toBe(b64);
    expect(base64decode(b64)).toBe(text);
  });

  it('accepts Base64 without padding', () => {
    expect(base64decode('aGVsbG8')).toBe('hello');
  });

  it.each([
    ['not Base64', 'a*b=', 'is not Base64'],
    ['a lone Base64 character', 'aGVsb', 'is not Base64'],
    ['bytes that are not UTF-8', '/w==', 'not UTF-8 text'],
  ])('refuses %s', (_name, b64, message) => {
    expect(() => base64decode(b64)).toThrow(message);
  });

  it('passes undefined through and refuses non-strings', () => {
    expect(base64encode(undefined)).toBeUndefined();
    expect(base64decode(undefined)).toBeUndefined();
    expect(() => base64encode(42)).toThrow('$base64encode: expected a string, got a number');
  });

  it('replaces JSONata’s Latin-1 built-ins in expressions', async () => {
    await expect(evaluate('{"e": $base64encode("grüße"), "d": $base64decode("4pyTIPCfmIA=")}')).resolves.toEqual({ e: 'Z3LDvMOfZQ==', d: '✓ 😀' });
  });
});

describe('$matchLabels', () => {
  const labels = { app: 'web', tier: 'front' };

  it.each<[string, unknown, unknown, boolean]>([
    ['matching matchLabels', labels, { matchLabels: { app: 'web' } }, true],
    ['a differing value', labels, { matchLabels: { app: 'db' } }, false],
    ['matchExpressions In', labels, { matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }] }, true],
    ['matchExpressions DoesNotExist', labels, { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, false],
    ['an empty selector', labels, {}, true],
    ['a missing selector', labels, undefined, false],
    ['missing labels against Exists', undefined, { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, false],
    ['missing labels against NotIn', undefined, { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] }, true],
  ])('%s', (_name, given, selector, expected) => {
    expect(matchLabels(given, selector)).toBe(expected);
  });

  it('refuses invalid selectors and labels', () => {
    expect(() => matchLabels(labels, { matchExpressions: [{ key: 'app', operator: 'Near' }] })).toThrow(InvalidSelectorError);
    expect(() => matchLabels(labels, 'app=web')).toThrow('$matchLabels: the selector must be an object, got a string');
    expect(() => matchLabels(['app'], {})).toThrow('$matchLabels: labels must be an object, got an array');
  });

  it('filters objects in an expression', async () => {
    const pods = { a: { metadata: { name: 'a', labels: { app: 'web' } } }, b: { metadata: { name: 'b', labels: { app: 'db' } } } };
    const expression = '{"names": [$each(children."Pod.v1", function($p) {$p})[$matchLabels(metadata.labels, $$.parent.spec.selector)].metadata.name]}';
    await expect(evaluate(expression, { parent: { spec: { selector: { matchLabels: { app: 'web' } } } }, children: { 'Pod.v1': pods } }))
      .resolves.toEqual({ names: ['a'] });
  });
});

describe('$dnsName', () => {
  it.each<[unknown[], string]>([
    [['web'], 'web'],
    [['web', 'config'], 'web-config'],
    [['Web', 'Cache_Redis', 0], 'web-cache-redis-0'],
    [['a..b', '--c--'], 'a-b-c'],
    [['-edge-', '_'], 'edge'],
    [['Ünïcode', 'name'], 'n-code-name'],
  ])('builds %j into %s', (parts, expected) => {
    expect(dnsName(...parts)).toBe(expected);
  });

  it('cuts a long name to 63 characters with a hash suffix that keeps different inputs apart', () => {
    const a = dnsName('x'.repeat(70), 'a');
    const b = dnsName('x'.repeat(70), 'b');
    for (const name of [a, b]) {
      expect(name).toHaveLength(63);
      expect(name).toMatch(DNS_1123_LABEL);
      expect(name.startsWith('x'.repeat(54))).toBe(true);
    }
    expect(a).not.toBe(b);
    expect(a.slice(-9)).toBe(`-${createHash('sha256').update(`${'x'.repeat(70)}-a`).digest('hex').slice(0, 8)}`);
  });

  it('does not end a cut name in a double dash', () => {
    const name = dnsName('a'.repeat(53), 'bbbbbbbbbbbbbb');
    expect(name).toMatch(DNS_1123_LABEL);
    expect(name).not.toContain('--');
    expect(name.length).toBeLessThanOrEqual(63);
  });

  it.each<[string, unknown[], string]>([
    ['no parts', [], 'needs at least one part'],
    ['a missing part', ['web', undefined], 'part 2 must be a string or a number, got nothing'],
    ['an object part', [{}], 'part 1 must be a string or a number, got an object'],
    ['nothing usable', ['__', '..'], 'has no letters or digits'],
  ])('refuses %s', (_name, parts, message) => {
    expect(() => dnsName(...parts)).toThrow(message);
  });

  it('is variadic in an expression', async () => {
    await expect(evaluate('{"n": $dnsName(parent.metadata.name, "PDB", 1)}', { parent: { metadata: { name: 'My.App' } } })).resolves.toEqual({ n: 'my-app-pdb-1' });
  });
});

describe('$child', () => {
  const web = { metadata: { name: 'web', namespace: 'default' } };
  const otherWeb = { metadata: { name: 'web', namespace: 'other' } };
  const v1 = { 'Deployment.apps/v1': { web }, 'Service.v1': {} };
  const v2 = { 'Deployment.apps/v1': { 'default/web': web } };
  const twoNamespaces = { 'Deployment.apps/v1': { 'default/web': web, 'other/web': otherWeb } };

  it.each<[string, unknown, [type: string, name: string], unknown]>([
    ['a v1 key', v1, ['Deployment.apps/v1', 'web'], web],
    ['a v2 key', v2, ['Deployment.apps/v1', 'default/web'], web],
    ['a plain name in a v2 map', v2, ['Deployment.apps/v1', 'web'], web],
    ['namespace/name among namespaces', twoNamespaces, ['Deployment.apps/v1', 'other/web'], otherWeb],
    ['a name not observed', v1, ['Deployment.apps/v1', 'api'], undefined],
    ['a namespace/name not observed', v2, ['Deployment.apps/v1', 'other/web'], undefined],
    ['a type with no objects', v1, ['Service.v1', 'web'], undefined],
    ['a type not in the map', v1, ['ConfigMap.v1', 'web'], undefined],
    ['no map', undefined, ['Deployment.apps/v1', 'web'], undefined],
  ])('finds %s', (_name, children, [type, name], expected) => {
    expect(child(children, type, name)).toBe(expected);
  });

  it('refuses a plain name that several namespaces share, and wrong arguments', () => {
    expect(() => child(twoNamespaces, 'Deployment.apps/v1', 'web')).toThrow('2 Deployment.apps/v1 objects are named "web"; give "namespace/name"');
    expect(() => child([], 'Deployment.apps/v1', 'web')).toThrow('$child: the object map must be an object, got an array');
    expect(() => child(v1, 'Deployment.apps/v1', 3)).toThrow('$child: expected a string, got a number');
  });

  it('reads an observed child in an expression', async () => {
    const deployment = { metadata: { name: 'web' }, status: { readyReplicas: 2 } };
    await expect(evaluate('{"ready": $child(children, "Deployment.apps/v1", parent.metadata.name).status.readyReplicas}', {
      parent: { metadata: { name: 'web' } }, children: { 'Deployment.apps/v1': { web: deployment } },
    })).resolves.toEqual({ ready: 2 });
  });
});

describe('$ready and $readiness', () => {
  const job = (status: Record<string, unknown>) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'migrate', generation: 2 }, status });
  const reconciled = job({ observedGeneration: 2 });
  const behind = job({ observedGeneration: 1 });

  it('judge an object as kstatus does', () => {
    expect(ready({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } })).toBe(true);
    expect(ready(behind)).toBe(false);
    expect(readiness(behind)).toEqual({ status: 'InProgress', message: 'Job: generation 2 not observed yet (status.observedGeneration is 1)' });
    expect(readiness({ ...reconciled, metadata: { ...reconciled.metadata, deletionTimestamp: '2026-11-27T00:00:00Z' } })).toMatchObject({ status: 'Terminating' });
  });

  it('say a missing object is not found, so a child not created yet is not ready', () => {
    expect(ready(undefined)).toBe(false);
    expect(readiness(undefined)).toEqual({ status: 'NotFound', message: 'not found' });
  });

  it.each([['a string', 'web'], ['an object without metadata', { kind: 'Job' }], ['an array', [reconciled]]])('refuse %s', (_name, value) => {
    expect(() => ready(value)).toThrow(/^\$ready: expected a Kubernetes object/);
    expect(() => readiness(value)).toThrow(/^\$readiness: expected a Kubernetes object/);
  });

  it('read the observed children of a request in an expression', async () => {
    const request = { parent: { metadata: { name: 'web' } }, children: { 'Job.batch/v1': { migrate: behind } } };
    await expect(evaluate('{"ready": $ready($child(children, "Job.batch/v1", "migrate")), "why": $readiness(children."Job.batch/v1".migrate).message, "db": $ready($child(children, "Job.batch/v1", "db"))}', request))
      .resolves.toEqual({ ready: false, why: 'Job: generation 2 not observed yet (status.observedGeneration is 1)', db: false });
  });
});

describe('JSONATA_HELPERS', () => {
  it('binds exactly the documented helpers', () => {
    expect(JSONATA_HELPERS.map((h) => h.name).sort()).toEqual(['base64decode', 'base64encode', 'child', 'dnsName', 'hash', 'matchLabels', 'readiness', 'ready']);
  });
});
