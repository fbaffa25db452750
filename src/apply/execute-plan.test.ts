/**
 * The create path of `executePlan`, over a recording writer: a child loom has not observed is created
 * so that the API server refuses a taken name (create-only apply or `POST`), and a refusal is judged
 * by one uncached read. And the ownership takeover before a server-side-apply update. What the API
 * server answers is tested on the real one (test/kube-writer, test/composite-taken-names,
 * test/migration-metacontroller); this checks loom's side of the exchange.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/object.ts';
import type { AppliedRecord, ChildDecision } from '../core/index.ts';
import { KubeApiError, type ApplyOptions, type ObjectRef, type ObjectWriter } from '../kube/index.ts';
import { childKey } from './applied-records.ts';
import { executePlan, WRITES_IN_FLIGHT } from './execute-plan.ts';
import { PlanStoppedError } from './plan-stopped.ts';

const child = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'web-config' };
const desired: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config', namespace: 'default' }, data: { a: '1' } };
const holder: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config', namespace: 'default', uid: 'uid-holder', resourceVersion: '7' } };
const alreadyExists = () => new KubeApiError('409 AlreadyExists: configmaps "web-config" already exists', { status: 409, reason: 'AlreadyExists' });

interface Fake {
  writer: ObjectWriter;
  calls: string[];
  applyOptions: ApplyOptions[];
}

/** A writer whose creates and applies answer `answer`, and whose reads find `existing`. */
function fakeWriter(answer: 'ok' | Error, existing: KubeObject | undefined): Fake {
  const calls: string[] = [];
  const applyOptions: ApplyOptions[] = [];
  const write = (what: string, obj: KubeObject): Promise<KubeObject> => {
    calls.push(what);
    if (answer !== 'ok') return Promise.reject(answer);
    return Promise.resolve({ ...obj, metadata: { ...obj.metadata, uid: 'uid-new', resourceVersion: '9' } });
  };
  const unexpected = (what: string) => () => Promise.reject(new Error(`unexpected ${what}`));
  return {
    calls, applyOptions,
    writer: {
      apply: (obj, options) => {
        applyOptions.push(options);
        return write('apply', obj);
      },
      create: (obj) => write('create', obj),
      get: (ref: ObjectRef) => {
        calls.push(`get ${ref.namespace ?? ''}/${ref.name}`);
        return Promise.resolve(existing);
      },
      replace: unexpected('replace'), replaceStatus: unexpected('replaceStatus'), patchJson: unexpected('patchJson'), delete: unexpected('delete'),
    },
  };
}

function run(fake: Fake, strategy: 'ssa' | 'dynamic', whyNotOurs: (existing: KubeObject) => string | undefined = () => undefined) {
  const records = new Map<string, AppliedRecord>();
  const decision: ChildDecision = strategy === 'ssa'
    ? { action: 'create', child, object: desired, fingerprint: 'hash' }
    : { action: 'create', child, object: desired };
  const seen: KubeObject[] = [];
  const outcomes = executePlan({
    decisions: [decision], writer: fake.writer, fieldManager: 'loom', applyStrategy: strategy === 'ssa' ? 'server-side-apply' : 'dynamic-apply',
    records, observedOf: () => undefined, logger: pino({ level: 'silent' }),
    whyNotOurs: (existing) => {
      seen.push(existing);
      return whyNotOurs(existing);
    },
  });
  return { outcomes, records, seen };
}

const chainOf = (err: unknown): string[] => (err instanceof Error ? [err.message, ...chainOf(err.cause)] : []);

describe('executePlan: create', () => {
  it('with server-side apply, creates in one create-only apply and records it', async () => {
    const fake = fakeWriter('ok', undefined);
    const { outcomes, records } = run(fake, 'ssa');
    expect(await outcomes).toEqual([{ child, action: 'create', wrote: true }]);
    expect(fake.calls).toEqual(['apply']);
    expect(fake.applyOptions).toEqual([{ fieldManager: 'loom', createOnly: true }]);
    expect(records.get(childKey(child))).toMatchObject({ hash: 'hash', uid: 'uid-new' });
  });

  it('with dynamic apply, creates in one POST', async () => {
    const fake = fakeWriter('ok', undefined);
    expect(await run(fake, 'dynamic').outcomes).toEqual([{ child, action: 'create', wrote: true }]);
    expect(fake.calls).toEqual(['create']);
  });

  describe.each(['ssa', 'dynamic'] as const)('when the name is taken (%s)', (strategy) => {
    it('is content when the object holding it is ours: the cache was behind', async () => {
      const fake = fakeWriter(alreadyExists(), holder);
      const { outcomes, records, seen } = run(fake, strategy);
      expect(await outcomes).toEqual([{ child, action: 'create', wrote: false }]);
      expect(fake.calls.slice(1)).toEqual(['get default/web-config']);
      expect(seen).toEqual([holder]);
      expect(records.size).toBe(0);
    });

    it('fails the child, naming the object and why it is not ours, and writes nothing more', async () => {
      const fake = fakeWriter(alreadyExists(), holder);
      const [outcome] = await run(fake, strategy, () => 'is not controlled by this parent (controller: Web other)').outcomes;
      expect(outcome).toMatchObject({ child, action: 'create', wrote: true });
      expect(chainOf(outcome?.error)).toEqual([
        'create ConfigMap default/web-config failed',
        'ConfigMap default/web-config already exists and is not controlled by this parent (controller: Web other)',
        '409 AlreadyExists: configmaps "web-config" already exists',
      ]);
      expect(fake.calls.slice(1)).toEqual(['get default/web-config']);
    });

    it('fails the child when the object is gone by the time it is read, so the sync is retried', async () => {
      const fake = fakeWriter(alreadyExists(), undefined);
      const [outcome] = await run(fake, strategy).outcomes;
      expect(chainOf(outcome?.error)[1]).toBe('ConfigMap default/web-config existed at the create and was gone at the read that followed');
    });
  });

  it('passes any other refusal on without a read', async () => {
    const fake = fakeWriter(new KubeApiError('422 Invalid: bad', { status: 422, reason: 'Invalid' }), holder);
    const [outcome] = await run(fake, 'ssa').outcomes;
    expect(chainOf(outcome?.error)).toEqual(['create ConfigMap default/web-config failed', '422 Invalid: bad']);
    expect(fake.calls).toEqual(['apply']);
  });
});

describe('executePlan: server-side-apply update with a takeover', () => {
  const takeOver = [{ op: 'test' as const, path: '/metadata/resourceVersion', value: '7' }, { op: 'remove' as const, path: '/metadata/annotations/x' }];

  function runUpdate(patchAnswer: 'ok' | Error) {
    const calls: string[] = [];
    const fake = fakeWriter('ok', undefined);
    fake.writer.patchJson = (ref, operations) => {
      calls.push(`patch ${ref.name} ${JSON.stringify(operations)}`);
      return patchAnswer === 'ok' ? Promise.resolve(holder) : Promise.reject(patchAnswer);
    };
    fake.writer.apply = (obj) => {
      calls.push('apply');
      return Promise.resolve(obj);
    };
    const outcomes = executePlan({
      decisions: [{ action: 'update', strategy: 'server-side-apply', child, object: desired, fingerprint: 'hash', takeOver }],
      writer: fake.writer, fieldManager: 'loom', applyStrategy: 'server-side-apply', records: new Map(),
      observedOf: () => undefined, logger: pino({ level: 'silent' }), whyNotOurs: () => undefined,
    });
    return { outcomes, calls };
  }

  it('patches the ownership over first, then applies', async () => {
    const { outcomes, calls } = runUpdate('ok');
    expect(await outcomes).toEqual([{ child, action: 'update', wrote: true }]);
    expect(calls).toEqual([`patch web-config ${JSON.stringify(takeOver)}`, 'apply']);
  });

  it('does not apply when the child changed since it was observed (the resourceVersion test fails), and says why', async () => {
    const { outcomes, calls } = runUpdate(new KubeApiError('422 Invalid: the server rejected our request due to an error in our request', { status: 422, reason: 'Invalid' }));
    const [outcome] = await outcomes;
    expect(calls).toHaveLength(1);
    expect(chainOf(outcome?.error)).toEqual([
      'update ConfigMap default/web-config failed',
      'taking over the fields of ConfigMap default/web-config from Metacontroller\'s or dynamic apply\'s field managers failed (changed since it was observed?)',
      '422 Invalid: the server rejected our request due to an error in our request',
    ]);
  });
});

describe('executePlan: writes in flight', () => {
  /** A writer whose creates and deletes stay pending until released, recording what started and the most in flight. */
  function heldWriter() {
    const pending: { what: string; release: () => void }[] = [];
    let inFlight = 0;
    let most = 0;
    const hold = <T>(what: string, value: T) => new Promise<T>((resolve) => {
      most = Math.max(most, ++inFlight);
      pending.push({ what, release: () => {
        inFlight--;
        resolve(value);
      } });
    });
    const writer = {
      create: (obj: KubeObject) => hold(`create ${obj.metadata.name}`, obj),
      delete: (ref: ObjectRef) => hold(`delete ${ref.name}`, true),
    } as unknown as ObjectWriter;
    /** What is in flight now, after the writes started so far have had their turn. */
    const started = async (): Promise<string[]> => {
      await new Promise((resolve) => setImmediate(resolve));
      return pending.map((p) => p.what);
    };
    const releaseAll = () => {
      for (const p of pending.splice(0)) p.release();
    };
    return { writer, started, releaseAll, most: () => most };
  }
  const create = (name: string, namespace = 'default'): ChildDecision =>
    ({ action: 'create', child: { ...child, namespace, name }, object: { ...desired, metadata: { name, ...(namespace ? { namespace } : {}) } } });
  const remove = (name: string): ChildDecision => ({ action: 'delete', child: { ...child, name }, uid: `uid-${name}` });
  const execute = (writer: ObjectWriter, decisions: ChildDecision[]) => executePlan({
    decisions, writer, fieldManager: 'loom', applyStrategy: 'dynamic-apply', records: new Map(),
    observedOf: () => undefined, whyNotOurs: () => undefined, logger: pino({ level: 'silent' }),
  });

  it('makes the deletes and the first other write one at a time, then the rest together, at most WRITES_IN_FLIGHT, reporting in order', async () => {
    const held = heldWriter();
    const creates = Array.from({ length: WRITES_IN_FLIGHT + 3 }, (_, i) => create(`c${i}`));
    const decisions = [remove('old1'), remove('old2'), ...creates];
    const done = execute(held.writer, decisions);
    const turns: string[][] = [];
    for (let turn = await held.started(); turn.length > 0; turn = await held.started()) {
      turns.push(turn);
      held.releaseAll();
    }
    expect(turns.slice(0, 4)).toEqual([['delete old1'], ['delete old2'], ['create c0'], creates.slice(1, 1 + WRITES_IN_FLIGHT).map((d) => `create ${d.child.name}`)]);
    const outcomes = await done;
    expect(held.most()).toBe(WRITES_IN_FLIGHT);
    expect(outcomes.map((o) => [o.child.name, o.wrote, o.error])).toEqual(decisions.map((d) => [d.child.name, true, undefined]));
  });

  it('makes a cluster-scoped write alone, after the writes before it and before those after it', async () => {
    const held = heldWriter();
    const done = execute(held.writer, [create('a'), create('b'), create('c'), create('ns', ''), create('d'), create('e')]);
    const turns: string[][] = [];
    for (let turn = await held.started(); turn.length > 0; turn = await held.started()) {
      turns.push(turn);
      held.releaseAll();
    }
    await done;
    expect(turns).toEqual([['create a'], ['create b', 'create c'], ['create ns'], ['create d', 'create e']]);
  });
});

describe('executePlan: stopped when its answer goes stale', () => {
  /** A writer that records every write it starts and answers at once. */
  function countingWriter() {
    const started: string[] = [];
    const writer = {
      create: (obj: KubeObject) => {
        started.push(`create ${obj.metadata.name}`);
        return Promise.resolve(obj);
      },
      delete: (ref: ObjectRef) => {
        started.push(`delete ${ref.name}`);
        return Promise.resolve(true);
      },
    } as unknown as ObjectWriter;
    return { writer, started };
  }
  const create = (name: string): ChildDecision =>
    ({ action: 'create', child: { ...child, name }, object: { ...desired, metadata: { name, namespace: 'default' } } });
  const remove = (name: string): ChildDecision => ({ action: 'delete', child: { ...child, name }, uid: `uid-${name}` });

  it('starts no write once stopIf gives a reason, and reports every write not started as stopped', async () => {
    const counting = countingWriter();
    const decisions = [...Array.from({ length: 40 }, (_, i) => create(`c${i}`)), remove('old')];
    const outcomes = await executePlan({
      decisions, writer: counting.writer, fieldManager: 'loom', applyStrategy: 'dynamic-apply', records: new Map(),
      observedOf: () => undefined, whyNotOurs: () => undefined, logger: pino({ level: 'silent' }),
      // Stale from the moment the 12th write has started.
      stopIf: () => (counting.started.length >= 12 ? 'the object was deleted' : undefined),
    });
    expect(counting.started).toHaveLength(12);
    // The delete the plan held is not made either: a stop never deletes anything.
    expect(counting.started).not.toContain('delete old');
    expect(outcomes.filter((o) => o.wrote)).toHaveLength(12);
    const stopped = outcomes.filter((o) => o.error instanceof PlanStoppedError);
    expect(stopped).toHaveLength(decisions.length - 12);
    expect(stopped.every((o) => !o.wrote && o.error?.message.includes('the object was deleted'))).toBe(true);
  });

  it('reports writes given up in flight by the stop as stopped, and a refusal the API server answered as a failure', async () => {
    const stop = new AbortController();
    let started = 0;
    const writer = {
      create: (obj: KubeObject) => {
        started++;
        // The first write is refused by the API server; the others are in flight when the controller stops.
        if (obj.metadata.name === 'c0') return Promise.reject(new KubeApiError('422 Invalid: bad', { status: 422, reason: 'Invalid' }));
        return new Promise((_, reject) => stop.signal.addEventListener('abort', () => reject(new Error('PUT given up', { cause: stop.signal.reason })), { once: true }));
      },
    } as unknown as ObjectWriter;
    const running = executePlan({
      decisions: Array.from({ length: 5 }, (_, i) => create(`c${i}`)), writer, fieldManager: 'loom', applyStrategy: 'dynamic-apply', records: new Map(),
      observedOf: () => undefined, whyNotOurs: () => undefined, logger: pino({ level: 'silent' }), stopIf: () => (stop.signal.aborted ? 'the controller is stopping' : undefined),
    });
    await expect.poll(() => started).toBe(5);
    stop.abort();
    const outcomes = await running;
    expect(outcomes[0]!.error).not.toBeInstanceOf(PlanStoppedError);
    expect(outcomes.slice(1).map((o) => o.error?.message)).toEqual([1, 2, 3, 4].map((i) => `create ConfigMap default/c${i} given up in flight: the controller is stopping`));
  });

  it('runs to the end while stopIf says nothing', async () => {
    const counting = countingWriter();
    const decisions = Array.from({ length: 20 }, (_, i) => create(`c${i}`));
    const outcomes = await executePlan({
      decisions, writer: counting.writer, fieldManager: 'loom', applyStrategy: 'dynamic-apply', records: new Map(),
      observedOf: () => undefined, whyNotOurs: () => undefined, logger: pino({ level: 'silent' }), stopIf: () => undefined,
    });
    expect(counting.started).toHaveLength(20);
    expect(outcomes.every((o) => o.wrote && !o.error)).toBe(true);
  });
});
