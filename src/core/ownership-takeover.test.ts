import { describe, expect, it } from 'vitest';
import { LAST_APPLIED_ANNOTATION, type KubeObject } from '../api/index.ts';
import { LAST_APPLIED_PATH, ownershipTakeover, withoutManagedFieldsUnlessTakenOver } from './ownership-takeover.ts';

const DATA = { 'f:data': { 'f:a': {}, 'f:b': {} } };
const LABELS = { 'f:metadata': { 'f:labels': { 'f:app': {} } } };
const ANNOTATED = { 'f:metadata': { 'f:annotations': { '.': {}, [`f:${LAST_APPLIED_ANNOTATION}`]: {} } } };

function child(managedFields: object[], annotated = false): KubeObject {
  return {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: {
      name: 'c', namespace: 'ns', resourceVersion: '7', managedFields,
      ...(annotated ? { annotations: { [LAST_APPLIED_ANNOTATION]: '{}' } } : {}),
    },
  };
}

const entry = (manager: string, operation: string, fieldsV1: object, extra: object = {}) =>
  ({ manager, operation, apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1, ...extra });

describe('ownershipTakeover', () => {
  it('does nothing to a child loom alone applies', () => {
    expect(ownershipTakeover(child([entry('loom', 'Apply', DATA)]), 'loom')).toBeUndefined();
  });

  it('hands the fields of Metacontroller\'s dynamic apply (Update) to loom\'s Apply entry and drops the annotation', () => {
    const patch = ownershipTakeover(child([entry('metacontroller', 'Update', { ...DATA, ...ANNOTATED })], true), 'loom');
    expect(patch).toEqual([
      { op: 'test', path: '/metadata/resourceVersion', value: '7' },
      { op: 'replace', path: '/metadata/managedFields', value: [entry('loom', 'Apply', DATA)] },
      { op: 'remove', path: LAST_APPLIED_PATH },
    ]);
  });

  it('merges Metacontroller\'s server-side Apply entry with loom\'s, keeping other managers and status entries', () => {
    const kubectl = entry('kubectl', 'Update', { 'f:data': { 'f:theirs': {} } });
    const status = entry('metacontroller', 'Update', { 'f:status': {} }, { subresource: 'status' });
    const patch = ownershipTakeover(child([entry('metacontroller', 'Apply', DATA), kubectl, status, entry('loom', 'Apply', LABELS, { time: '2026-02-01T00:00:00Z' })]), 'loom');
    expect(patch?.[1]).toEqual({
      op: 'replace', path: '/metadata/managedFields',
      value: [kubectl, status, entry('loom', 'Apply', { ...LABELS, ...DATA }, { time: '2026-02-01T00:00:00Z' })],
    });
    expect(patch).toHaveLength(2);
  });

  it('takes over loom\'s own Update entries, left by its dynamic apply', () => {
    const patch = ownershipTakeover(child([entry('loom', 'Update', DATA)]), 'loom');
    expect(patch?.[1]).toMatchObject({ value: [entry('loom', 'Apply', DATA)] });
  });

  it('keeps an Apply entry that already is loom\'s, when loom runs under Metacontroller\'s manager name', () => {
    const patch = ownershipTakeover(child([entry('metacontroller', 'Apply', DATA), entry('metacontroller', 'Update', LABELS)]), 'metacontroller');
    expect(patch?.[1]).toMatchObject({ value: [entry('metacontroller', 'Apply', { ...DATA, ...LABELS })] });
  });

  it('only drops the annotation when no entry is to be taken over, still under the resourceVersion precondition', () => {
    expect(ownershipTakeover(child([entry('loom', 'Apply', DATA)], true), 'loom')).toEqual([
      { op: 'test', path: '/metadata/resourceVersion', value: '7' },
      { op: 'remove', path: LAST_APPLIED_PATH },
    ]);
  });

  // The rule of which entries are taken over: [entry, loom's field manager, taken over].
  it.each<[string, string, boolean]>([
    ['metacontroller/Update', 'loom', true],
    ['metacontroller/Apply', 'loom', true],
    ['metacontroller/Apply', 'metacontroller', false],
    ['metacontroller/Update', 'metacontroller', true],
    ['loom/Update', 'loom', true],
    ['mc-ssa/Apply', 'mc-ssa', false],
    ['mc-ssa/Apply', 'loom', false],
    ['kubectl/Update', 'loom', false],
    ['kube-controller-manager/Apply', 'loom', false],
    ['metacontroller/Update/status', 'loom', false],
    ['loom/Update/status', 'loom', false],
  ])('%s, loom running as %s: taken over %s', (who, fieldManager, takenOver) => {
    const [manager = '', operation = '', subresource] = who.split('/');
    const theirs = entry(manager, operation, DATA, subresource ? { subresource } : {});
    const patch = ownershipTakeover(child([theirs]), fieldManager);
    if (!takenOver) {
      expect(patch).toBeUndefined();
      return;
    }
    expect(patch?.[1]).toEqual({ op: 'replace', path: '/metadata/managedFields', value: [entry(fieldManager, 'Apply', DATA)] });
  });

  it('unions nested sets key by key', () => {
    const a = { 'f:spec': { 'f:template': { 'f:metadata': { 'f:labels': { 'f:x': {} } } } } };
    const b = { 'f:spec': { 'f:template': { 'f:metadata': { 'f:labels': { 'f:y': {} } }, 'f:spec': {} } } };
    const patch = ownershipTakeover(child([entry('metacontroller', 'Update', a), entry('metacontroller', 'Apply', b)]), 'loom');
    expect(patch?.[1]).toMatchObject({
      value: [entry('loom', 'Apply', { 'f:spec': { 'f:template': { 'f:metadata': { 'f:labels': { 'f:x': {}, 'f:y': {} } }, 'f:spec': {} } } })],
    });
  });
});

describe('withoutManagedFieldsUnlessTakenOver', () => {
  it('drops the entries of an object loom would take nothing over from', () => {
    const owned = child([entry('loom', 'Apply', DATA), entry('kubectl', 'Update', LABELS), entry('loom', 'Update', DATA, { subresource: 'status' })]);
    const kept = withoutManagedFieldsUnlessTakenOver(owned, 'loom');
    expect(kept.metadata).not.toHaveProperty('managedFields');
    expect(kept.metadata).toMatchObject({ name: 'c', resourceVersion: '7' });
    expect(owned.metadata.managedFields).toHaveLength(3);
  });

  it('keeps every entry of an object loom would take over, for the takeover to merge', () => {
    const coOwned = child([entry('loom', 'Apply', DATA), entry('metacontroller', 'Update', LABELS), entry('kubectl', 'Update', DATA)]);
    const kept = withoutManagedFieldsUnlessTakenOver(coOwned, 'loom');
    expect(kept).toBe(coOwned);
    expect(ownershipTakeover(kept, 'loom')).toBeDefined();
  });
});
