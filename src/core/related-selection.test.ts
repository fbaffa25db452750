import { describe, expect, it } from 'vitest';
import type { RelatedResourceRule } from '../api/index.ts';
import type { KubeObject } from '../api/object.ts';
import { RelatedRuleError, relatedSelection, selects, type NamespaceLabels, type RelatedScope, type RelatedSelection } from './related-selection.ts';

const CM = { apiVersion: 'v1', resource: 'configmaps' };
const NODES = { apiVersion: 'v1', resource: 'nodes' };

const v1Namespaced: RelatedScope = { version: 'v1', parentNamespace: 'team-a', namespaced: true };
const v1NamespacedParentClusterResource: RelatedScope = { version: 'v1', parentNamespace: 'team-a', namespaced: false };
const v1ClusterParent: RelatedScope = { version: 'v1', namespaced: true };
const v1EmptyNamespaceParent: RelatedScope = { version: 'v1', parentNamespace: '', namespaced: true };
const v2Namespaced: RelatedScope = { version: 'v2', parentNamespace: 'team-a', namespaced: true };
const v2ClusterResource: RelatedScope = { version: 'v2', parentNamespace: 'team-a', namespaced: false };

const app = { matchLabels: { app: 'web' } };
const team = { matchLabels: { team: 'x' } };

describe('relatedSelection rejects invalid customize rules', () => {
  it.each<[string, RelatedResourceRule, RelatedScope, RegExp]>([
    ['names + labelSelector', { ...CM, names: ['a'], labelSelector: app }, v2Namespaced, /names cannot be combined/],
    ['names + namespaceSelector', { ...CM, names: ['a'], namespaceSelector: team }, v2Namespaced, /names cannot be combined/],
    ['names + both selectors', { ...CM, names: ['a'], labelSelector: app, namespaceSelector: team }, v2Namespaced, /names/],
    ['names + labelSelector (v1 cluster parent)', { ...CM, names: ['a'], labelSelector: app }, v1ClusterParent, /names/],
    ['namespace + namespaceSelector', { ...CM, namespace: 'team-b', namespaceSelector: team }, v2Namespaced, /namespace cannot be combined with namespaceSelector/],
    ['namespace + namespaceSelector (v1 cluster parent)', { ...CM, namespace: 'team-b', namespaceSelector: team }, v1ClusterParent, /namespaceSelector/],
    ['namespaceSelector on a cluster-scoped resource (v2)', { ...NODES, namespaceSelector: team }, v2ClusterResource, /namespaced resource/],
    ['namespaceSelector on a cluster-scoped resource (v1 cluster parent)', { ...NODES, namespaceSelector: team }, { version: 'v1', namespaced: false }, /namespaced resource/],
    ['v1 namespaced parent: namespaceSelector', { ...CM, namespaceSelector: team }, v1Namespaced, /v1 hook .* namespaceSelector/],
    ['v1 namespaced parent: namespaceSelector with labelSelector', { ...CM, labelSelector: app, namespaceSelector: team }, v1Namespaced, /namespaceSelector/],
    ['v1 namespaced parent: other namespace', { ...CM, namespace: 'team-b' }, v1Namespaced, /only sees namespace team-a, not team-b/],
    ['v1 namespaced parent: other namespace with names', { ...CM, namespace: 'team-b', names: ['a'] }, v1Namespaced, /team-b/],
  ])('%s', (_name, rule, scope, message) => {
    expect(() => relatedSelection(rule, scope)).toThrow(RelatedRuleError);
    expect(() => relatedSelection(rule, scope)).toThrow(message);
  });

  it('names the resource in the message', () => {
    expect(() => relatedSelection({ ...CM, names: ['a'], labelSelector: app }, v2Namespaced)).toThrow('configmaps.v1');
  });
});

describe('relatedSelection accepts and scopes valid rules', () => {
  it.each<[string, RelatedResourceRule, RelatedScope, RelatedSelection]>([
    // v1 + namespaced parent + namespaced resource: confined to the parent's namespace.
    ['v1 confined: nothing → parent namespace', { ...CM }, v1Namespaced, { ...CM, namespace: 'team-a' }],
    ['v1 confined: labelSelector', { ...CM, labelSelector: app }, v1Namespaced, { ...CM, namespace: 'team-a', labelSelector: app }],
    ['v1 confined: names', { ...CM, names: ['a', 'b'] }, v1Namespaced, { ...CM, namespace: 'team-a', names: ['a', 'b'] }],
    ['v1 confined: own namespace spelled out', { ...CM, namespace: 'team-a', names: ['a'] }, v1Namespaced, { ...CM, namespace: 'team-a', names: ['a'] }],
    ['v1 confined: empty namespace → parent namespace', { ...CM, namespace: '' }, v1Namespaced, { ...CM, namespace: 'team-a' }],
    // v1 + namespaced parent + cluster-scoped resource: not confined.
    ['v1 namespaced parent, cluster resource: nothing', { ...NODES }, v1NamespacedParentClusterResource, { ...NODES }],
    ['v1 namespaced parent, cluster resource: names', { ...NODES, names: ['n1'] }, v1NamespacedParentClusterResource, { ...NODES, names: ['n1'] }],
    ['v1 namespaced parent, cluster resource: labelSelector', { ...NODES, labelSelector: app }, v1NamespacedParentClusterResource, { ...NODES, labelSelector: app }],
    // v1 + cluster-scoped parent: not confined.
    ['v1 cluster parent: other namespace', { ...CM, namespace: 'team-b' }, v1ClusterParent, { ...CM, namespace: 'team-b' }],
    ['v1 cluster parent: anywhere', { ...CM, labelSelector: app }, v1ClusterParent, { ...CM, labelSelector: app }],
    ['v1 cluster parent: namespaceSelector', { ...CM, labelSelector: app, namespaceSelector: team }, v1ClusterParent, { ...CM, labelSelector: app, namespaceSelector: team }],
    ['v1 parent with empty namespace counts as cluster-scoped', { ...CM, namespace: 'team-b' }, v1EmptyNamespaceParent, { ...CM, namespace: 'team-b' }],
    // v2: anything allowed.
    ['v2: nothing → any namespace', { ...CM }, v2Namespaced, { ...CM }],
    ['v2: other namespace', { ...CM, namespace: 'team-b', labelSelector: app }, v2Namespaced, { ...CM, namespace: 'team-b', labelSelector: app }],
    ['v2: namespaceSelector', { ...CM, namespaceSelector: team }, v2Namespaced, { ...CM, namespaceSelector: team }],
    ['v2: namespaceSelector + labelSelector', { ...CM, labelSelector: app, namespaceSelector: team }, v2Namespaced, { ...CM, labelSelector: app, namespaceSelector: team }],
    ['v2: namespace + names', { ...CM, namespace: 'team-b', names: ['a'] }, v2Namespaced, { ...CM, namespace: 'team-b', names: ['a'] }],
    ['v2: cluster resource', { ...NODES, names: ['n1'] }, v2ClusterResource, { ...NODES, names: ['n1'] }],
    ['v2: empty namespace means all namespaces', { ...CM, namespace: '' }, v2Namespaced, { ...CM }],
    ['v2: empty names means any name', { ...CM, names: [], labelSelector: app }, v2Namespaced, { ...CM, labelSelector: app }],
    ['v2: empty namespace with namespaceSelector', { ...CM, namespace: '', namespaceSelector: team }, v2Namespaced, { ...CM, namespaceSelector: team }],
  ])('%s', (_name, rule, scope, expected) => {
    expect(relatedSelection(rule, scope)).toStrictEqual(expected);
  });
});

function obj(name: string, namespace?: string, labels?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...(namespace === undefined ? {} : { namespace }), ...(labels ? { labels } : {}) },
  };
}

const NAMESPACES: Record<string, Record<string, string>> = { 'team-a': { team: 'x' }, 'team-b': { team: 'y' }, bare: {} };
const namespaceLabels: NamespaceLabels = (namespace) => NAMESPACES[namespace];

describe('selects', () => {
  const webInA = obj('web', 'team-a', { app: 'web' });
  const dbInB = obj('db', 'team-b', { app: 'db' });
  const unlabelledInBare = obj('plain', 'bare');
  const inUnknown = obj('web', 'nowhere', { app: 'web' });
  const node = obj('node-1', undefined, { app: 'web' });
  const emptyNamespaceObj = obj('odd', '');

  it.each<[string, RelatedSelection, KubeObject, boolean]>([
    ['no filters picks a namespaced object', { ...CM }, webInA, true],
    ['no filters picks a cluster-scoped object', { ...NODES }, node, true],
    ['namespace: same', { ...CM, namespace: 'team-a' }, webInA, true],
    ['namespace: other', { ...CM, namespace: 'team-a' }, dbInB, false],
    ['namespace: cluster-scoped object is not in it', { ...CM, namespace: 'team-a' }, node, false],
    ["namespace '': picks a cluster-scoped object", { ...NODES, namespace: '' }, node, true],
    ["namespace '': picks an object with empty namespace", { ...NODES, namespace: '' }, emptyNamespaceObj, true],
    ["namespace '': skips a namespaced object", { ...CM, namespace: '' }, webInA, false],
    ['names: listed', { ...CM, names: ['db', 'web'] }, webInA, true],
    ['names: not listed', { ...CM, names: ['db'] }, webInA, false],
    ['names: empty list picks nothing', { ...CM, names: [] }, webInA, false],
    ['names + namespace: both hold', { ...CM, namespace: 'team-b', names: ['db'] }, dbInB, true],
    ['names + namespace: name right, namespace wrong', { ...CM, namespace: 'team-a', names: ['db'] }, dbInB, false],
    ['labelSelector: matches', { ...CM, labelSelector: app }, webInA, true],
    ['labelSelector: differs', { ...CM, labelSelector: app }, dbInB, false],
    ['labelSelector: object without labels', { ...CM, labelSelector: app }, unlabelledInBare, false],
    ['labelSelector: DoesNotExist on object without labels', { ...CM, labelSelector: { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] } }, unlabelledInBare, true],
    ['labelSelector: matchExpressions In', { ...CM, labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['db', 'x'] }] } }, dbInB, true],
    ['labelSelector {} picks everything', { ...CM, labelSelector: {} }, unlabelledInBare, true],
    ['labelSelector {} picks cluster-scoped too', { ...NODES, labelSelector: {} }, node, true],
    ['namespaceSelector: namespace matches', { ...CM, namespaceSelector: team }, webInA, true],
    ['namespaceSelector: namespace differs', { ...CM, namespaceSelector: team }, dbInB, false],
    ['namespaceSelector: unknown namespace', { ...CM, namespaceSelector: team }, inUnknown, false],
    ['namespaceSelector {}: unknown namespace still not picked', { ...CM, namespaceSelector: {} }, inUnknown, false],
    ['namespaceSelector {}: known unlabelled namespace', { ...CM, namespaceSelector: {} }, unlabelledInBare, true],
    ['namespaceSelector + labelSelector: both hold', { ...CM, namespaceSelector: team, labelSelector: app }, webInA, true],
    ['namespaceSelector + labelSelector: labels fail', { ...CM, namespaceSelector: team, labelSelector: { matchLabels: { app: 'db' } } }, webInA, false],
  ])('%s', (_name, selection, object, expected) => {
    expect(selects(selection, object, namespaceLabels)).toBe(expected);
  });

  it("asks for the object's own namespace", () => {
    const asked: string[] = [];
    const recording: NamespaceLabels = (namespace) => {
      asked.push(namespace);
      return NAMESPACES[namespace];
    };
    expect(selects({ ...CM, namespaceSelector: { matchLabels: { team: 'y' } } }, dbInB, recording)).toBe(true);
    expect(asked).toEqual(['team-b']);
  });

  it('does not look up namespaces without a namespaceSelector', () => {
    const asked: string[] = [];
    selects({ ...CM, labelSelector: app }, webInA, (namespace) => (asked.push(namespace), undefined));
    expect(asked).toEqual([]);
  });

  it('a v1-confined selection picks only the parent namespace', () => {
    const confined = relatedSelection({ ...CM, labelSelector: app }, v1Namespaced);
    expect(selects(confined, webInA, namespaceLabels)).toBe(true);
    expect(selects(confined, obj('web', 'team-b', { app: 'web' }), namespaceLabels)).toBe(false);
  });
});
