import { describe, expect, it } from 'vitest';
import type { LabelSelector } from '../api/label-selector.ts';
import type { KubeObject, OwnerReference } from '../api/object.ts';
import {
  adoptedChild,
  claimChildren,
  controllerRefFor,
  ParentIdentityError,
  parentSelector,
  ParentSelectorError,
  releasedChild,
  type ClaimResult,
} from './claim.ts';

const UID = 'uid-parent';
const DELETED_AT = '2024-01-01T00:00:00Z';

function parent(extra: { selector?: unknown; deleting?: boolean; namespace?: string } = {}): KubeObject {
  return {
    apiVersion: 'ctl.example.com/v1',
    kind: 'Web',
    metadata: {
      name: 'web',
      namespace: extra.namespace ?? 'default',
      uid: UID,
      ...(extra.deleting ? { deletionTimestamp: DELETED_AT } : {}),
    },
    spec: 'selector' in extra ? { selector: extra.selector } : {},
  };
}

const ourRef: OwnerReference = { apiVersion: 'ctl.example.com/v1', kind: 'Web', name: 'web', uid: UID, controller: true, blockOwnerDeletion: true };
const otherRef: OwnerReference = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'uid-other', controller: true };
const plainRef: OwnerReference = { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: 'uid-cm' };

describe('parentSelector', () => {
  it.each<[string, unknown, LabelSelector]>([
    ['matchLabels', { matchLabels: { app: 'web' } }, { matchLabels: { app: 'web' } }],
    ['matchExpressions', { matchExpressions: [{ key: 'app', operator: 'In', values: ['a', 'b'] }] }, { matchExpressions: [{ key: 'app', operator: 'In', values: ['a', 'b'] }] }],
    ['Exists without values', { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, { matchExpressions: [{ key: 'app', operator: 'Exists' }] }],
    ['empty matchLabels beside expressions', { matchLabels: {}, matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, { matchLabels: {}, matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }],
  ])('reads %s from spec.selector', (_name, selector, expected) => {
    expect(parentSelector({ parent: parent({ selector }), generateSelector: false })).toEqual(expected);
  });

  it.each<[string, unknown, string]>([
    ['missing', undefined, 'spec.selector is missing'],
    ['not an object', 'app=web', 'spec.selector is missing'],
    ['empty', {}, 'must have matchLabels, matchExpressions, or both'],
    ['empty lists', { matchLabels: {}, matchExpressions: [] }, 'must have matchLabels, matchExpressions, or both'],
    ['non-string label value', { matchLabels: { replicas: 3 } }, 'matchLabels["replicas"] must be a string'],
    ['matchExpressions not a list', { matchExpressions: { key: 'a' } }, 'matchExpressions must be a list'],
    ['expression without key', { matchExpressions: [{ operator: 'Exists' }] }, 'matchExpressions[0] needs a key'],
    ['unknown operator', { matchExpressions: [{ key: 'a', operator: 'Near' }] }, 'unknown operator "Near"'],
    ['In without values', { matchExpressions: [{ key: 'a', operator: 'In' }] }, 'operator In needs values'],
    ['Exists with values', { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, 'operator Exists takes no values'],
    ['non-string values', { matchExpressions: [{ key: 'a', operator: 'In', values: [1] }] }, 'values must be a list of strings'],
  ])('rejects a selector that is %s', (_name, selector, message) => {
    const call = (): LabelSelector => parentSelector({ parent: parent({ selector }), generateSelector: false });
    expect(call).toThrow(ParentSelectorError);
    expect(call).toThrow(message);
    expect(call).toThrow('parent Web default/web');
  });

  it('generates controller-uid=<uid> and ignores spec.selector with generateSelector', () => {
    const p = parent({ selector: { matchLabels: { app: 'web' } } });
    expect(parentSelector({ parent: p, generateSelector: true })).toEqual({ matchLabels: { 'controller-uid': UID } });
    expect(parentSelector({ parent: parent(), generateSelector: true })).toEqual({ matchLabels: { 'controller-uid': UID } });
  });

  it('needs a UID to generate a selector', () => {
    const p = parent();
    delete p.metadata.uid;
    expect(() => parentSelector({ parent: p, generateSelector: true })).toThrow(ParentIdentityError);
  });

  it('returns a copy that does not alias the parent', () => {
    const p = parent({ selector: { matchLabels: { app: 'web' } } });
    const selector = parentSelector({ parent: p, generateSelector: false });
    selector.matchLabels!.app = 'changed';
    expect(p.spec).toEqual({ selector: { matchLabels: { app: 'web' } } });
  });
});

describe('controllerRefFor', () => {
  it('names the parent as controller and blocks owner deletion', () => {
    expect(controllerRefFor(parent())).toEqual(ourRef);
  });

  it('needs a name and a UID', () => {
    const noName = parent();
    delete noName.metadata.name;
    const noUid = parent();
    delete noUid.metadata.uid;
    expect(() => controllerRefFor(noName)).toThrow('has no metadata.name');
    expect(() => controllerRefFor(noUid)).toThrow('has no metadata.uid');
  });
});

describe('claimChildren', () => {
  const selector: LabelSelector = { matchLabels: { app: 'web' } };
  type Owner = 'ours' | 'other' | 'orphan';

  function child(owner: Owner, opts: { matches: boolean; deleting?: boolean; namespace?: string }): KubeObject {
    const refs = { ours: [plainRef, ourRef], other: [otherRef], orphan: [plainRef] }[owner];
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${owner}-${String(opts.matches)}`,
        namespace: opts.namespace ?? 'default',
        labels: { app: opts.matches ? 'web' : 'db' },
        ownerReferences: refs,
        ...(opts.deleting ? { deletionTimestamp: DELETED_AT } : {}),
      },
    };
  }

  interface ClaimRow {
    owner: Owner;
    matches: boolean;
    parentDeleting: boolean;
    childDeleting: boolean;
    verdict: keyof ClaimResult;
  }
  const row = (...[owner, matches, parentDeleting, childDeleting, verdict]: [Owner, boolean, boolean, boolean, keyof ClaimResult]): ClaimRow =>
    ({ owner, matches, parentDeleting, childDeleting, verdict });

  it.each<ClaimRow>([
    // owner, selector matches, parent deleting, child deleting → verdict
    row('ours', true, false, false, 'claimed'),
    row('ours', true, true, false, 'claimed'),
    row('ours', true, false, true, 'claimed'),
    row('ours', false, false, false, 'release'),
    row('ours', false, true, false, 'ignored'),
    row('orphan', true, false, false, 'adopt'),
    row('orphan', true, true, false, 'ignored'),
    row('orphan', true, false, true, 'ignored'),
    row('orphan', false, false, false, 'ignored'),
    row('other', true, false, false, 'ignored'),
    row('other', false, false, false, 'ignored'),
  ])('$owner child, match=$matches, parent deleting=$parentDeleting, child deleting=$childDeleting → $verdict', (r) => {
    const candidate = child(r.owner, { matches: r.matches, deleting: r.childDeleting });
    const result = claimChildren({ parent: parent({ deleting: r.parentDeleting }), selector, candidates: [candidate] });
    const expected: ClaimResult = { claimed: [], adopt: [], release: [], ignored: [] };
    expected[r.verdict].push(candidate);
    expect(result).toEqual(expected);
  });

  it('ignores candidates outside a namespaced parent\'s namespace', () => {
    const candidates = [child('ours', { matches: true, namespace: 'other' }), child('orphan', { matches: true, namespace: 'other' })];
    expect(claimChildren({ parent: parent(), selector, candidates }).ignored).toEqual(candidates);
  });

  it('considers every namespace for a cluster-scoped parent', () => {
    const p = parent();
    delete p.metadata.namespace;
    const candidates = [child('ours', { matches: true, namespace: 'a' }), child('orphan', { matches: true, namespace: 'b' })];
    const result = claimChildren({ parent: p, selector, candidates });
    expect(result.claimed).toEqual([candidates[0]]);
    expect(result.adopt).toEqual([candidates[1]]);
  });

  it('adopts no orphan with adopt: Never, and keeps what it already owns', () => {
    const orphan = child('orphan', { matches: true });
    const ours = child('ours', { matches: true });
    const stray = child('ours', { matches: false });
    const result = claimChildren({ parent: parent(), selector, candidates: [orphan, ours, stray], adopt: 'Never' });
    expect(result).toEqual({ claimed: [ours], adopt: [], release: [stray], ignored: [orphan] });
    expect(claimChildren({ parent: parent(), selector, candidates: [orphan], adopt: 'IfExists' }).adopt).toEqual([orphan]);
  });

  it('never adopts again an orphan this parent released by its deletion policy, but another parent may', () => {
    const released = child('orphan', { matches: true });
    released.metadata.annotations = { 'loom.dev/released-from': UID };
    expect(claimChildren({ parent: parent(), selector, candidates: [released] }).ignored).toEqual([released]);
    released.metadata.annotations = { 'loom.dev/released-from': 'uid-another-parent' };
    expect(claimChildren({ parent: parent(), selector, candidates: [released] }).adopt).toEqual([released]);
  });

  it('sorts a mixed list, keeping candidate order within each verdict', () => {
    const a = child('ours', { matches: true });
    const b = child('orphan', { matches: true });
    const c = child('ours', { matches: false });
    const d = { ...child('ours', { matches: true }), metadata: { ...child('ours', { matches: true }).metadata, name: 'd' } };
    const result = claimChildren({ parent: parent(), selector, candidates: [a, b, c, d] });
    expect(result).toEqual({ claimed: [a, d], adopt: [b], release: [c], ignored: [] });
  });
});

describe('adoptedChild', () => {
  const orphan: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', ownerReferences: [plainRef] } };

  it('appends the controller reference without touching the input', () => {
    const before = structuredClone(orphan);
    expect(adoptedChild({ parent: parent(), child: orphan })?.metadata.ownerReferences).toEqual([plainRef, ourRef]);
    expect(orphan).toEqual(before);
  });

  it('replaces a non-controller reference to the same parent', () => {
    const child: KubeObject = { ...orphan, metadata: { name: 'p', ownerReferences: [{ ...ourRef, controller: false }, plainRef] } };
    expect(adoptedChild({ parent: parent(), child })?.metadata.ownerReferences).toEqual([plainRef, ourRef]);
  });

  it('works on a child without owner references', () => {
    const child: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } };
    expect(adoptedChild({ parent: parent(), child })?.metadata.ownerReferences).toEqual([ourRef]);
  });

  it('refuses a child another controller took meanwhile', () => {
    const child: KubeObject = { ...orphan, metadata: { name: 'p', ownerReferences: [otherRef] } };
    expect(adoptedChild({ parent: parent(), child })).toBeUndefined();
  });
});

describe('releasedChild', () => {
  it('removes our reference and keeps the others, without touching the input', () => {
    const child: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', ownerReferences: [plainRef, ourRef] } };
    const before = structuredClone(child);
    expect(releasedChild({ parent: parent(), child })?.metadata.ownerReferences).toEqual([plainRef]);
    expect(child).toEqual(before);
  });

  it('has nothing to write when the child does not reference the parent', () => {
    const child: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', ownerReferences: [otherRef] } };
    expect(releasedChild({ parent: parent(), child })).toBeUndefined();
    expect(releasedChild({ parent: parent(), child: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } } })).toBeUndefined();
  });
});
