/**
 * `executePlan` stops issuing writes an earlier failure has doomed (namespace terminating or gone,
 * forbidden), and keeps going past any other failure, over a writer that records its calls.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/object.ts';
import type { AppliedRecord, ChildDecision } from '../core/index.ts';
import { KubeApiError, type ObjectRef, type ObjectWriter } from '../kube/index.ts';
import { executePlan } from './execute-plan.ts';

const object = (kind: string, namespace: string, name: string): KubeObject => ({ apiVersion: 'v1', kind, metadata: { name, namespace } });
const create = (kind: string, namespace: string, name: string): ChildDecision =>
  ({ action: 'create', child: { apiVersion: 'v1', kind, namespace, name }, object: object(kind, namespace, name) });
const remove = (kind: string, namespace: string, name: string): ChildDecision =>
  ({ action: 'delete', child: { apiVersion: 'v1', kind, namespace, name }, uid: `uid-${name}` });

const terminating = (ns: string) => new KubeApiError(`403 Forbidden: configmaps "a" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`, { status: 403, reason: 'Forbidden' });
const namespaceNotFound = (ns: string) => new KubeApiError(`404 NotFound: namespaces "${ns}" not found`, { status: 404, reason: 'NotFound' });
const forbidden = () => new KubeApiError('403 Forbidden: configmaps is forbidden: User "loom" cannot create resource "configmaps"', { status: 403, reason: 'Forbidden' });
const invalid = () => new KubeApiError('422 Invalid: bad data key', { status: 422, reason: 'Invalid' });

/** A writer whose creates answer `fail(obj)` (an error, or nothing for success), recording every call. */
function writerFailing(fail: (obj: KubeObject) => Error | undefined) {
  const calls: string[] = [];
  const writer = {
    create: (obj: KubeObject) => {
      calls.push(`create ${obj.kind} ${obj.metadata.namespace}/${obj.metadata.name}`);
      const error = fail(obj);
      return error ? Promise.reject(error) : Promise.resolve(obj);
    },
    delete: (ref: ObjectRef) => {
      calls.push(`delete ${ref.kind} ${ref.namespace}/${ref.name}`);
      return Promise.resolve(true);
    },
    get: () => Promise.resolve(undefined),
  } as unknown as ObjectWriter;
  return { writer, calls };
}

function run(writer: ObjectWriter, decisions: ChildDecision[]) {
  return executePlan({
    decisions, writer, fieldManager: 'loom', applyStrategy: 'dynamic-apply', records: new Map<string, AppliedRecord>(),
    observedOf: () => undefined, whyNotOurs: () => undefined, logger: pino({ level: 'silent' }),
  });
}

describe('executePlan: doomed writes', () => {
  it.each([
    ['being terminated', terminating('gone')],
    ['gone', namespaceNotFound('gone')],
  ])('skips the other writes into a namespace that is %s, but not deletes nor other namespaces', async (_name, error) => {
    const { writer, calls } = writerFailing((obj) => (obj.metadata.namespace === 'gone' ? error : undefined));
    const outcomes = await run(writer, [create('ConfigMap', 'gone', 'a'), create('Secret', 'gone', 'b'), create('ConfigMap', 'fine', 'c'), remove('ConfigMap', 'gone', 'old')]);
    expect(calls).toEqual(['create ConfigMap gone/a', 'create ConfigMap fine/c', 'delete ConfigMap gone/old']);
    expect(outcomes.map((o) => [o.wrote, o.error?.message])).toEqual([
      [true, 'create ConfigMap gone/a failed'], [false, 'create Secret gone/b not attempted'], [true, undefined], [true, undefined],
    ]);
    expect(outcomes[1]!.error!.cause).toBe(outcomes[0]!.error);
  });

  it('skips only the same write of the same type in the namespace after a Forbidden', async () => {
    const { writer, calls } = writerFailing((obj) => (obj.kind === 'ConfigMap' ? forbidden() : undefined));
    await run(writer, [create('ConfigMap', 'ns', 'a'), create('ConfigMap', 'ns', 'b'), create('Secret', 'ns', 'c'), create('ConfigMap', 'other', 'd')]);
    expect(calls).toEqual(['create ConfigMap ns/a', 'create Secret ns/c', 'create ConfigMap other/d']);
  });

  it('keeps going past a failure that says nothing about the next write', async () => {
    const { writer, calls } = writerFailing((obj) => (obj.metadata.name === 'a' ? invalid() : undefined));
    const outcomes = await run(writer, [create('ConfigMap', 'ns', 'a'), create('ConfigMap', 'ns', 'b')]);
    expect(calls).toEqual(['create ConfigMap ns/a', 'create ConfigMap ns/b']);
    expect(outcomes[1]!.error).toBeUndefined();
  });
});
