import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/object.ts';
import { appliedRecordOf, fingerprintOf, isUpToDate, type AppliedRecord } from './applied-fingerprint.ts';

function secret(data: Record<string, string>, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns', ...extra }, data };
}

describe('fingerprintOf', () => {
  it('is the sha256 of the canonical JSON', () => {
    const obj = secret({ a: 'b' });
    const expected = createHash('sha256')
      .update('{"apiVersion":"v1","data":{"a":"b"},"kind":"Secret","metadata":{"name":"s","namespace":"ns"}}')
      .digest('base64');
    expect(fingerprintOf(obj)).toBe(expected);
  });

  it('ignores key order and sees any value change', () => {
    const reordered: KubeObject = { data: { a: 'b' }, metadata: { namespace: 'ns', name: 's' }, kind: 'Secret', apiVersion: 'v1' };
    expect(fingerprintOf(reordered)).toBe(fingerprintOf(secret({ a: 'b' })));
    expect(fingerprintOf(secret({ a: 'c' }))).not.toBe(fingerprintOf(secret({ a: 'b' })));
  });
});

describe('isUpToDate', () => {
  const hash = 'h1';
  const record: AppliedRecord = { uid: 'u1', hash, resourceVersion: '10' };
  const observed = secret({}, { uid: 'u1', resourceVersion: '10' });

  it.each<[string, { rec: AppliedRecord | undefined; obs: KubeObject; desiredHash: string }, boolean]>([
    ['everything matches', { rec: record, obs: observed, desiredHash: hash }, true],
    ['no record', { rec: undefined, obs: observed, desiredHash: hash }, false],
    ['desired changed', { rec: record, obs: observed, desiredHash: 'h2' }, false],
    ['object written since (resourceVersion bumped)', { rec: record, obs: secret({}, { uid: 'u1', resourceVersion: '11' }), desiredHash: hash }, false],
    ['object recreated (new uid)', { rec: record, obs: secret({}, { uid: 'u2', resourceVersion: '10' }), desiredHash: hash }, false],
    ['observed without uid', { rec: record, obs: secret({}, { resourceVersion: '10' }), desiredHash: hash }, false],
  ])('%s', (_name, { rec, obs, desiredHash }, expected) => {
    expect(isUpToDate(rec, obs, desiredHash)).toBe(expected);
  });
});

describe('appliedRecordOf', () => {
  it('records uid and resourceVersion of the applied object', () => {
    expect(appliedRecordOf(secret({}, { uid: 'u1', resourceVersion: '7' }), 'h')).toEqual({ uid: 'u1', hash: 'h', resourceVersion: '7' });
  });

  it('records nothing for an object the server did not stamp', () => {
    expect(appliedRecordOf(secret({}, { uid: 'u1' }), 'h')).toBeUndefined();
  });
});
