import { describe, expect, it } from 'vitest';
import { DECORATOR_CONTROLLER_ANNOTATION } from '../api/well-known.ts';
import type { LabelSelector } from '../api/label-selector.ts';
import type { KubeObject, OwnerReference } from '../api/object.ts';
import { reclaimedChild, whyNotAttachment, whyNotChild } from './taken-name.ts';

const UID = 'uid-parent';
const DELETED_AT = '2024-01-01T00:00:00Z';
const selector: LabelSelector = { matchLabels: { app: 'web' } };

const parent = (deleting = false): KubeObject => ({
  apiVersion: 'ctl.example.com/v1', kind: 'Web',
  metadata: { name: 'web', namespace: 'default', uid: UID, ...(deleting ? { deletionTimestamp: DELETED_AT } : {}) },
});

const ourRef: OwnerReference = { apiVersion: 'ctl.example.com/v1', kind: 'Web', name: 'web', uid: UID, controller: true };
const otherRef: OwnerReference = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'uid-other', controller: true };
const plainRef: OwnerReference = { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: 'uid-cm' };

function existing(extra: { labels?: Record<string, string>; refs?: OwnerReference[]; deleting?: boolean; namespace?: string; annotations?: Record<string, string> } = {}): KubeObject {
  return {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: {
      name: 'web-config', namespace: extra.namespace ?? 'default', labels: extra.labels ?? { app: 'web' },
      ...(extra.refs ? { ownerReferences: extra.refs } : {}),
      ...(extra.annotations ? { annotations: extra.annotations } : {}),
      ...(extra.deleting ? { deletionTimestamp: DELETED_AT } : {}),
    },
  };
}

describe('whyNotChild', () => {
  it.each<[string, KubeObject, boolean, string | undefined]>([
    ['our child, seen late by the cache', existing({ refs: [ourRef] }), false, undefined],
    ['our child that no longer matches (the next sync releases it)', existing({ refs: [ourRef], labels: {} }), false, undefined],
    ['our child while the parent is being deleted', existing({ refs: [ourRef], labels: {} }), true, undefined],
    ['a matching orphan, which the next sync adopts', existing(), false, undefined],
    ['a matching orphan with a non-controller owner', existing({ refs: [plainRef] }), false, undefined],
    ['a child of another controller', existing({ refs: [otherRef] }), false, 'is not controlled by this parent (controller: ReplicaSet rs)'],
    ['an orphan that does not match', existing({ labels: { app: 'db' } }), false, 'has no controller and does not match the selector app=web'],
    ['an unlabelled orphan', existing({ labels: {} }), false, 'has no controller and does not match the selector app=web'],
    ['a matching orphan being deleted', existing({ deleting: true }), false, 'has no controller and is being deleted'],
    ['a matching orphan while the parent is being deleted', existing(), true, 'has no controller, and a parent being deleted adopts nothing'],
    ['an object in another namespace', existing({ namespace: 'other' }), false, 'is outside the parent\'s namespace'],
  ])('%s', (_name, obj, deleting, expected) => {
    expect(whyNotChild({ parent: parent(deleting), selector, existing: obj })).toBe(expected);
  });

  it('says why a matching orphan is not adopted: released by this parent, or adopt: Never', () => {
    const released = existing({ annotations: { 'loom.dev/released-from': UID } });
    expect(whyNotChild({ parent: parent(), selector, existing: released })).toBe('was released by this parent (its deletionPolicy), which never adopts it again');
    expect(whyNotChild({ parent: parent(), selector, existing: existing(), adopt: 'Never' })).toBe('has no controller, and its child type says adopt: Never');
    expect(whyNotChild({ parent: parent(), selector, existing: existing(), adopt: 'IfExists' })).toBeUndefined();
  });

  it('prints the whole selector', () => {
    const wide: LabelSelector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] };
    expect(whyNotChild({ parent: parent(), selector: wide, existing: existing() }))
      .toBe('has no controller and does not match the selector app=web,tier in (a,b)');
  });
});

describe('reclaimedChild', () => {
  const released = (extra: Parameters<typeof existing>[0] = {}) => existing({ ...extra, annotations: { 'loom.dev/released-from': UID, keep: 'me' } });

  it('takes back a child this parent released once the answer names it again: the same object, unmarked, for the claim to adopt', () => {
    const back = reclaimedChild({ parent: parent(), selector, existing: released() });
    expect(back?.metadata.annotations).toEqual({ keep: 'me' });
    expect({ ...back, metadata: { ...back?.metadata, annotations: undefined } }).toEqual({ ...released(), metadata: { ...released().metadata, annotations: undefined } });
  });

  it.each<[string, KubeObject, boolean, 'Never' | undefined]>([
    ['an orphan another parent released', existing({ annotations: { 'loom.dev/released-from': 'uid-other' } }), false, undefined],
    ['a plain matching orphan (the claim adopts it anyway)', existing(), false, undefined],
    ['a released child someone else controls now', released({ refs: [otherRef] }), false, undefined],
    ['a released child that no longer matches', released({ labels: {} }), false, undefined],
    ['a released child being deleted', released({ deleting: true }), false, undefined],
    ['a released child while the parent is being deleted', released(), true, undefined],
    ['a released child of a type that says adopt: Never', released(), false, 'Never'],
  ])('leaves alone %s', (_what, obj, deleting, adopt) => {
    expect(reclaimedChild({ parent: parent(deleting), selector, existing: obj, adopt })).toBeUndefined();
  });
});

describe('whyNotAttachment', () => {
  const mark = { [DECORATOR_CONTROLLER_ANNOTATION]: 'deco' };
  const call = (obj: KubeObject) => whyNotAttachment({ target: parent(), controllerName: 'deco', existing: obj });

  it.each<[string, KubeObject, string | undefined]>([
    ['our attachment, seen late by the cache', existing({ refs: [ourRef], annotations: mark }), undefined],
    ['an orphan, even a marked one', existing({ annotations: mark }), 'has no controller (a DecoratorController adopts nothing)'],
    ['an object another controller controls', existing({ refs: [otherRef], annotations: mark }), 'is not controlled by this target (controller: ReplicaSet rs)'],
    ['an object the target controls for someone else', existing({ refs: [ourRef] }), 'is controlled by this target but is not an attachment of DecoratorController deco'],
    ['an object the target controls for another decorator', existing({ refs: [ourRef], annotations: { [DECORATOR_CONTROLLER_ANNOTATION]: 'other' } }),
      'is controlled by this target but is not an attachment of DecoratorController deco'],
  ])('%s', (_name, obj, expected) => {
    expect(call(obj)).toBe(expected);
  });
});
