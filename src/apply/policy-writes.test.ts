/**
 * The writes of the children's lifecycle policies over a recording writer: a release is one PUT of the
 * child without the parent's reference; an update the API server refuses for an immutable field deletes
 * that one child (after a dry-run create, UID precondition) only with `onImmutableChange: Recreate`, and
 * otherwise fails with the server's words. The server's answers themselves are checked on the real one
 * (test/composite-policies.test.ts); the wordings below are kube-apiserver's.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/object.ts';
import type { AppliedRecord, ChildDecision } from '../core/index.ts';
import { KubeApiError, type DeleteOptions, type ObjectRef, type ObjectWriter } from '../kube/index.ts';
import { childKey } from './applied-records.ts';
import { executePlan } from './execute-plan.ts';
import { isImmutableFieldRefusal } from './policy-writes.ts';

const invalid = (message: string) => new KubeApiError(`422 Invalid: ${message}`, { status: 422, reason: 'Invalid' });

describe('isImmutableFieldRefusal', () => {
  it.each([
    ['a ConfigMap marked immutable', invalid('ConfigMap "c" is invalid: data: Forbidden: field is immutable when `immutable` is set'), true],
    ['a Job\'s template', invalid('Job.batch "j" is invalid: spec.template: Invalid value: core.PodTemplateSpec{}: field is immutable'), true],
    ['a Service\'s cluster IP', invalid('Service "s" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.0.0.9"}: may not change once set'), true],
    ['a claim\'s spec', invalid('PersistentVolumeClaim "data" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'), true],
    ['a StatefulSet\'s spec', invalid('StatefulSet.apps "db" is invalid: spec: Forbidden: updates to statefulset spec for fields other than \'replicas\', \'ordinals\', \'template\', \'updateStrategy\', \'revisionHistoryLimit\', \'persistentVolumeClaimRetentionPolicy\' and \'minReadySeconds\' are forbidden'), true],
    ['a CRD rule self == oldSelf', invalid('Database.db.example.com "d" is invalid: spec.engine: Invalid value: "string": Value is immutable'), true],
    ['an invalid name', invalid('ConfigMap "C" is invalid: metadata.name: Invalid value: "C": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters'), false],
    ['a conflict that mentions the word', new KubeApiError('409 Conflict: immutable', { status: 409, reason: 'Conflict' }), false],
    ['an error that is not the API server\'s', new Error('field is immutable'), false],
  ])('%s: %s', (_what, err, expected) => {
    expect(isImmutableFieldRefusal(err)).toBe(expected);
  });
});

const child = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'settings' };
const desired: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'ns' }, immutable: true, data: { v: '2' } };
const refusal = invalid('ConfigMap "settings" is invalid: data: Forbidden: field is immutable when `immutable` is set');

/** A writer whose update (apply or PUT) answers `updateAnswer` and whose dry-run create answers `dryRunAnswer`; it records each call. */
function recordingWriter(updateAnswer: 'ok' | Error, dryRunAnswer: Error = new KubeApiError('409 AlreadyExists', { status: 409, reason: 'AlreadyExists' })) {
  const calls: string[] = [];
  const answer = (what: string, obj: KubeObject): Promise<KubeObject> => {
    calls.push(what);
    return updateAnswer === 'ok' ? Promise.resolve(obj) : Promise.reject(updateAnswer);
  };
  const writer = {
    apply: (obj: KubeObject) => answer('apply', obj),
    replace: (obj: KubeObject) => answer(`replace ${JSON.stringify(obj.metadata.ownerReferences ?? [])}`, obj),
    create: (obj: KubeObject, options?: { dryRun?: boolean }) => {
      calls.push(`create${options?.dryRun ? ' (dry run)' : ''} ${JSON.stringify(obj.data)}`);
      return Promise.reject(dryRunAnswer);
    },
    delete: (ref: ObjectRef, options?: DeleteOptions) => {
      calls.push(`delete ${ref.name} uid=${options?.uid ?? ''}`);
      return Promise.resolve(true);
    },
  } as Pick<ObjectWriter, 'apply' | 'replace' | 'create' | 'delete'> as ObjectWriter;
  return { calls, writer };
}

function execute(decision: ChildDecision, writer: ObjectWriter, strategy: 'server-side-apply' | 'dynamic-apply', reclaim?: (existing: KubeObject) => KubeObject | undefined) {
  const records = new Map<string, AppliedRecord>([[childKey(child), { uid: 'uid-old', resourceVersion: '3', hash: 'h' }]]);
  const outcomes = executePlan({
    decisions: [decision], writer, fieldManager: 'loom', applyStrategy: strategy, records,
    observedOf: () => undefined, logger: pino({ level: 'silent' }), whyNotOurs: () => 'was released by this parent', reclaim,
  });
  return { outcomes, records };
}

const chainOf = (err: unknown): string[] => (err instanceof Error ? [err.message, ...chainOf(err.cause)] : []);

const updates = {
  'server-side-apply': (recreate: boolean): ChildDecision => ({
    action: 'update', strategy: 'server-side-apply', child, object: desired, fingerprint: 'h2', takeOver: undefined,
    ...(recreate ? { recreateIfImmutable: { uid: 'uid-old', desired } } : {}),
  }),
  'dynamic-apply': (recreate: boolean): ChildDecision => ({
    action: 'update', strategy: 'dynamic-apply', child, recordOnly: false,
    object: { ...desired, metadata: { ...desired.metadata, uid: 'uid-old', resourceVersion: '3' } },
    ...(recreate ? { recreateIfImmutable: { uid: 'uid-old', desired } } : {}),
  }),
} as const;

describe.each(['server-side-apply', 'dynamic-apply'] as const)('an update refused for an immutable field (%s)', (strategy) => {
  const update = strategy === 'server-side-apply' ? 'apply' : 'replace []';

  it('with onImmutableChange: Recreate, deletes that child by UID once desired passes a dry-run create, and forgets its record', async () => {
    const { calls, writer } = recordingWriter(refusal);
    const { outcomes, records } = execute(updates[strategy](true), writer, strategy);
    // Reported as replaced, so writing in order takes the child as gone (NotFound), not as its old self.
    expect(await outcomes).toEqual([{ child, action: 'update', wrote: true, replaced: true }]);
    expect(calls).toEqual([update, 'create (dry run) {"v":"2"}', 'delete settings uid=uid-old']);
    expect(records.size).toBe(0);
  });

  it('without it, fails with the API server\'s words and deletes nothing', async () => {
    const { calls, writer } = recordingWriter(refusal);
    const [outcome] = await execute(updates[strategy](false), writer, strategy).outcomes;
    expect(chainOf(outcome?.error)).toEqual(['update ConfigMap ns/settings failed', refusal.message]);
    expect(calls).toEqual([update]);
  });

  it('with it, still fails on a refusal for another reason', async () => {
    const other = invalid('ConfigMap "settings" is invalid: data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters');
    const { calls, writer } = recordingWriter(other);
    const [outcome] = await execute(updates[strategy](true), writer, strategy).outcomes;
    expect(chainOf(outcome?.error)).toContain(other.message);
    expect(calls).toEqual([update]);
  });

  it('keeps the child when desired fails the dry-run create', async () => {
    const { calls, writer } = recordingWriter(refusal, invalid('ConfigMap "settings" is invalid: data: Too many'));
    const [outcome] = await execute(updates[strategy](true), writer, strategy).outcomes;
    expect(chainOf(outcome?.error).join(' / ')).toMatch(/failed a dry-run create, so the old one was kept/);
    expect(calls).toEqual([update, 'create (dry run) {"v":"2"}']);
  });
});

describe('a release by deletion policy', () => {
  const released: KubeObject = { ...desired, metadata: { ...desired.metadata, ownerReferences: [], annotations: { 'loom.dev/released-from': 'uid-p' } } };

  it('puts the child without the parent\'s reference and forgets its record', async () => {
    const { calls, writer } = recordingWriter('ok');
    const { outcomes, records } = execute({ action: 'release', child, object: released }, writer, 'server-side-apply');
    expect(await outcomes).toEqual([{ child, action: 'release', wrote: true }]);
    expect(calls).toEqual(['replace []']);
    expect(records.size).toBe(0);
  });

  it.each([
    ['gone', new KubeApiError('404 NotFound', { status: 404, reason: 'NotFound' })],
    ['changed since the cache saw it', new KubeApiError('409 Conflict', { status: 409, reason: 'Conflict' })],
  ])('leaves a child that is %s to the next sync', async (_what, answer) => {
    const { writer } = recordingWriter(answer);
    expect(await execute({ action: 'release', child, object: released }, writer, 'dynamic-apply').outcomes).toEqual([{ child, action: 'release', wrote: false }]);
  });
});

describe('a create whose name a child released by this parent holds', () => {
  const released: KubeObject = { ...desired, metadata: { ...desired.metadata, uid: 'uid-old', annotations: { 'loom.dev/released-from': 'uid-p' } } };
  const unmarked: KubeObject = { ...released, metadata: { ...released.metadata, annotations: {} } };
  const writer = (calls: string[]) => ({
    create: () => Promise.reject(new KubeApiError('409 AlreadyExists', { status: 409, reason: 'AlreadyExists' })),
    get: () => Promise.resolve(released),
    replace: (obj: KubeObject) => {
      calls.push(`replace ${JSON.stringify(obj.metadata.annotations)}`);
      return Promise.resolve(obj);
    },
  }) as Pick<ObjectWriter, 'create' | 'get' | 'replace'> as ObjectWriter;

  it('takes it back when the answer names it again: writes it unmarked, for the next claim to adopt, and does not fail', async () => {
    const calls: string[] = [];
    const [outcome] = await execute({ action: 'create', child, object: desired }, writer(calls), 'dynamic-apply', () => unmarked).outcomes;
    expect(outcome).toEqual({ child, action: 'create', wrote: true });
    expect(calls).toEqual(['replace {}']);
  });

  it('fails saying why when it may not be taken back', async () => {
    const calls: string[] = [];
    const [outcome] = await execute({ action: 'create', child, object: desired }, writer(calls), 'dynamic-apply', () => undefined).outcomes;
    expect(chainOf(outcome?.error).join(' / ')).toMatch(/already exists and was released by this parent/);
    expect(calls).toEqual([]);
  });
});
