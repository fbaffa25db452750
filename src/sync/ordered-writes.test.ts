import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/index.ts';
import type { ChildOutcome } from '../apply/index.ts';
import { PlanStoppedError } from '../apply/index.ts';
import { childOrderOf, childRefOf, orderKeyOf, readinessOf, removalOrderOf, type ChildDecision, type Readiness } from '../core/index.ts';
import { writeInOrder } from './ordered-writes.ts';

const declared = [{ apiVersion: 'v1', kind: 'ConfigMap' }, { apiVersion: 'example.com/v1', kind: 'Widget' }];

/** A child; a Widget answers its writes not ready unless `ready` says otherwise. */
function obj(kind: 'ConfigMap' | 'Widget', name: string, annotations?: Record<string, string>): KubeObject {
  return { apiVersion: kind === 'ConfigMap' ? 'v1' : 'example.com/v1', kind, metadata: { name, namespace: 'ns', ...(annotations && { annotations }) } };
}
const wave = (n: number) => ({ 'loom.dev/wave': String(n) });
const notReady = (o: KubeObject): KubeObject => ({ ...o, status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Provisioning' }] } });

const create = (o: KubeObject): ChildDecision => ({ action: 'create', child: childRefOf(o), object: o });
const remove = (o: KubeObject): ChildDecision => ({ action: 'delete', child: childRefOf(o), uid: 'u' });

/** Runs `writeInOrder` over a fake API: widgets are answered not ready; records each round's writes. */
async function run(input: {
  desired: KubeObject[]; decisions: ChildDecision[]; observed?: KubeObject[]; unwanted?: KubeObject[]; stopAfter?: number;
  remembered?: ReadonlyMap<string, Readiness>; replaced?: string;
}) {
  const order = childOrderOf({ desired: input.desired, declared, ruleOf: () => undefined });
  if (!order.ok) throw new Error(order.problems.join());
  const rounds: string[][] = [];
  const answers = new Map<string, KubeObject>();
  const judged: string[] = [];
  const result = await writeInOrder({
    order: order.order, decisions: input.decisions,
    removals: removalOrderOf({ desired: input.unwanted ?? [], declared, ruleOf: () => undefined }),
    observed: new Map((input.observed ?? []).map((o) => [orderKeyOf(childRefOf(o)), o])),
    writtenOf: (key) => answers.get(key),
    lastAnswerOf: (key) => input.remembered?.get(key),
    answered: (object, readiness) => judged.push(`${object.metadata.name} ${readiness.status}`),
    judge: (objects) => Promise.resolve(objects.map((o) => readinessOf(o))),
    execute: (round) => {
      rounds.push(round.map((d) => `${d.action} ${d.child.name}`));
      const stopped = input.stopAfter !== undefined && rounds.length > input.stopAfter;
      return Promise.resolve(round.map((d): ChildOutcome => {
        if (stopped) return { child: d.child, action: d.action, wrote: false, error: new PlanStoppedError(d.action, 'parent deleted') };
        if (d.action === 'create') answers.set(orderKeyOf(d.child), d.object.kind === 'Widget' ? notReady(d.object) : d.object);
        // An update refused for an immutable field and replaced by its delete (`onImmutableChange: Recreate`).
        if (d.child.name === input.replaced) return { child: d.child, action: d.action, wrote: true, replaced: true };
        return { child: d.child, action: d.action, wrote: true };
      }));
    },
  });
  return { rounds, judged, ...result };
}

describe('writeInOrder', () => {
  it('writes a release by deletion policy in the first round, holding back no deletion', async () => {
    // Kept by its policy, the released child is in neither order: it must neither wait nor be waited for.
    const desired = [obj('ConfigMap', 'a')];
    const kept = obj('ConfigMap', 'kept', wave(2));
    const going = obj('ConfigMap', 'going', wave(1));
    const release: ChildDecision = { action: 'release', child: childRefOf(kept), object: kept };
    const { rounds, held } = await run({ desired, decisions: [release, remove(going), ...desired.map(create)], unwanted: [going] });
    expect(rounds).toEqual([['release kept', 'delete going', 'create a']]);
    expect(held).toEqual([]);
  });

  it('goes on wave after wave in one sync while the answers are ready', async () => {
    const desired = [obj('ConfigMap', 'c', wave(2)), obj('ConfigMap', 'a', wave(0)), obj('ConfigMap', 'b', wave(1))];
    const { rounds, held, children } = await run({ desired, decisions: desired.map(create) });
    expect(rounds).toEqual([['create a'], ['create b'], ['create c']]);
    expect(held).toEqual([]);
    expect(children.map((c) => c.readiness.status)).toEqual(['Current', 'Current', 'Current']);
  });

  it('holds what comes after a child answered not ready, and writes nothing of it', async () => {
    const desired = [obj('ConfigMap', 'a'), obj('Widget', 'db'), obj('ConfigMap', 'app', wave(1)), obj('ConfigMap', 'b', { 'loom.dev/depends-on': 'Widget/db' })];
    const { rounds, held, children } = await run({ desired, decisions: desired.map(create) });
    expect(rounds).toEqual([['create a', 'create db']]);
    expect(held.map((h) => [h.ref.name, h.waitsFor.map((w) => `${w.ref.name} ${w.why}`)])).toEqual([
      ['b', ['db InProgress: Widget: Ready is False (Provisioning)']],
      ['app', ['db InProgress: Widget: Ready is False (Provisioning)', 'b held']],
    ]);
    expect(children.map((c) => `${c.ref.name} ${c.readiness.status}`)).toEqual(['a Current', 'db InProgress', 'app NotFound', 'b NotFound']);
  });

  it('judges a predecessor with no write due as observed', async () => {
    const db = obj('Widget', 'db');
    const app = obj('ConfigMap', 'app', wave(1));
    const held = await run({ desired: [db, app], decisions: [{ action: 'unchanged', child: childRefOf(db) }, create(app)], observed: [notReady(db)] });
    expect(held.rounds).toEqual([]);
    const ready = await run({ desired: [db, app], decisions: [{ action: 'unchanged', child: childRefOf(db) }, create(app)], observed: [db] });
    expect(ready.rounds).toEqual([['create app']]);
  });

  it('judges a child written moments ago, which the cache has not delivered yet, by its last answer', async () => {
    // Created by the last sync and not planned again (`manage-children.ts` awaitingCache): without the
    // answer's verdict it would be NotFound, and the parent's Ready would flap until the watch caught up.
    const db = obj('Widget', 'db');
    const app = obj('ConfigMap', 'app', wave(1));
    const remembered = new Map([[orderKeyOf(childRefOf(db)), { status: 'Current' as const, message: 'Widget: Ready is True' }]]);
    const { rounds, held, children } = await run({ desired: [db, app], decisions: [create(app)], remembered });
    expect(rounds).toEqual([['create app']]);
    expect(held).toEqual([]);
    expect(children.map((c) => `${c.ref.name} ${c.readiness.status}`)).toEqual(['db Current', 'app Current']);
  });

  it('tells the verdict of each answer, to be remembered with the write', async () => {
    const desired = [obj('Widget', 'db'), obj('ConfigMap', 'app', wave(1))];
    const { judged } = await run({ desired, decisions: desired.map(create) });
    expect(judged).toEqual(['db InProgress']);
  });

  it('holds what comes after a child whose update was replaced by its delete: it is gone until created anew', async () => {
    const job = obj('ConfigMap', 'job');
    const app = obj('ConfigMap', 'app', wave(1));
    const update: ChildDecision = { action: 'update', strategy: 'server-side-apply', child: childRefOf(job), object: job, fingerprint: 'h', takeOver: undefined };
    const { rounds, held, children } = await run({ desired: [job, app], decisions: [update, create(app)], observed: [job], replaced: 'job' });
    expect(rounds).toEqual([['update job']]);
    expect(held.map((h) => h.ref.name)).toEqual(['app']);
    expect(children.map((c) => `${c.ref.name} ${c.readiness.status}`)).toEqual(['job NotFound', 'app NotFound']);
  });

  it('without order: one round, every write in plan order', async () => {
    const desired = [obj('Widget', 'w'), obj('ConfigMap', 'b'), obj('ConfigMap', 'a')];
    const gone = obj('ConfigMap', 'old');
    const { rounds } = await run({ desired, decisions: [remove(gone), ...desired.map(create)], unwanted: [gone] });
    expect(rounds).toEqual([['delete old', 'create w', 'create b', 'create a']]);
  });

  it('deletes the highest wave of the unwanted first; the rest waits for the next sync', async () => {
    const unwanted = [obj('ConfigMap', 'low'), obj('ConfigMap', 'top', wave(3))];
    const { rounds, held } = await run({ desired: [], decisions: unwanted.map(remove), unwanted });
    expect(rounds).toEqual([['delete top']]);
    expect(held.map((h) => [h.deleting, h.ref.name])).toEqual([[true, 'low']]);
  });

  it('prunes last: a going child waits while a desired child of a higher wave is held', async () => {
    // Renaming claim data-v1 to data-v2: the wave-1 user of the claim must move over before data-v1 goes.
    const desired = [obj('Widget', 'data-v2'), obj('ConfigMap', 'user', wave(1))];
    const old = obj('ConfigMap', 'data-v1');
    const { rounds, held } = await run({ desired, decisions: [remove(old), ...desired.map(create)], unwanted: [old] });
    expect(rounds).toEqual([['create data-v2']]);
    expect(held.map((h) => [h.deleting, h.ref.name, h.waitsFor.map((w) => `${w.ref.name} (${w.why})`)])).toEqual([
      [false, 'user', ['data-v2 (InProgress: Widget: Ready is False (Provisioning))']],
      [true, 'data-v1', ['user (held)']],
    ]);
  });

  it('prunes last: once the higher waves are written in this sync, the going child goes in the same sync', async () => {
    const desired = [obj('ConfigMap', 'a'), obj('ConfigMap', 'b', wave(1))];
    const old = obj('ConfigMap', 'old');
    const { rounds, held } = await run({ desired, decisions: [remove(old), ...desired.map(create)], unwanted: [old] });
    expect(rounds).toEqual([['create a'], ['create b'], ['delete old']]);
    expect(held).toEqual([]);
  });

  it('starts no round after the plan stopped', async () => {
    const desired = [obj('ConfigMap', 'a'), obj('ConfigMap', 'b', wave(1))];
    const { rounds, outcomes } = await run({ desired, decisions: desired.map(create), stopAfter: 0 });
    expect(rounds).toEqual([['create a']]);
    expect(outcomes[0]?.error).toBeInstanceOf(PlanStoppedError);
  });
});
