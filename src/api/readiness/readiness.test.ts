import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../object.ts';
import { READINESS_STATUSES, SCHEDULE_GRACE_MS, conditionOf, isReady, readinessOf, type ReadinessOptions } from './index.ts';

/** One table row of testdata/*.yaml (the format is described at the top of kstatus-cases.yaml). */
interface Case {
  case: string;
  expect: string;
  kstatus?: string;
  says?: string;
  now?: string;
  object: KubeObject;
}

function casesOf(file: string): Case[] {
  return load(readFileSync(join(import.meta.dirname, 'testdata', file), 'utf8')) as Case[];
}

/** Freezes `value` all the way down, so a rule that wrote to the object it judges would throw. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

function optionsOf(row: Case): ReadinessOptions {
  return row.now === undefined ? {} : { now: Date.parse(row.now) };
}

const kstatusCases = casesOf('kstatus-cases.yaml');
const loomCases = casesOf('loom-cases.yaml');

/** Every case of kstatus's tests for the kinds loom judges and the generic rules: the acceptance list. */
const KSTATUS_CASE_NAMES = [
  'podNoStatus', 'podReady', 'podCompletedSuccessfully', 'podCompletedFailed', 'podBeingScheduled', 'podUnschedulable', 'podCrashLooping',
  'augmentNoExistingConditions', 'augmentHasOtherExistingConditions', 'augmentAlreadyReconciling', 'augmentAlreadyStalled',
  'augmentCustomResourceWithNoConditions',
  'pvcNoStatus', 'pvcBound',
  'stsNoStatus', 'stsBadStatus', 'stsOK', 'stsLessReady', 'stsLessCurrent', 'stsExtraPods',
  'dsNoStatus', 'dsBadStatus', 'dsOK', 'dsDifferentGeneration', 'dsLessReady', 'dsLessAvailable',
  'depNoStatus', 'depOK', 'depNotProgressing', 'depNoProgressDeadlineSeconds', 'depNotAvailable',
  'rsNoStatus', 'rsOK1', 'rsOK2', 'rsLessReady', 'rsLessAvailable', 'rsReplicaFailure',
  'pdbNotObserved', 'pdbObserved',
  'crdNoStatus', 'crdMismatchStatusGeneration', 'crdReady', 'crdNotReady', 'crdNoCondition',
  'jobNoStatus', 'jobComplete', 'jobFailed', 'jobInProgress',
  'suspendedJob', 'previouslySuspendedJob', 'jobTransitionToSuspended', 'jobTransitionFromSuspended',
  'cronjobNoStatus', 'cronjobWithStatus',
  'serviceDefault', 'serviceNodePort', 'serviceLBok', 'serviceLBnok',
  'crdNoConditions', 'crdInstalling', 'crdNamesNotAccepted', 'crdEstablished',
];

describe('readinessOf: kstatus cases', () => {
  it('covers every case of the acceptance list, once', () => {
    expect(kstatusCases.map((row) => row.case).sort()).toEqual([...KSTATUS_CASE_NAMES].sort());
  });

  it('differs from kstatus only where the docs say so: a Pod whose phase is Failed', () => {
    const differing = kstatusCases.filter((row) => row.kstatus !== undefined);
    expect(differing.map((row) => [row.case, row.kstatus, row.expect])).toEqual([['podCompletedFailed', 'Current', 'Failed']]);
  });

  it.each(kstatusCases.map((row) => [row.case, row] as const))('%s', (_name, row) => {
    const readiness = readinessOf(deepFreeze(row.object), optionsOf(row));
    expect(readiness.status).toBe(row.expect);
    if (row.says !== undefined) expect(readiness.message).toContain(row.says);
  });
});

describe('readinessOf: loom cases', () => {
  it('has tables of known statuses and unique names', () => {
    const rows = [...kstatusCases, ...loomCases];
    expect(rows.filter((row) => !(READINESS_STATUSES as readonly string[]).includes(row.expect))).toEqual([]);
    expect(new Set(rows.map((row) => row.case)).size).toBe(rows.length);
  });

  it.each(loomCases.map((row) => [row.case, row] as const))('%s', (_name, row) => {
    const readiness = readinessOf(deepFreeze(row.object), optionsOf(row));
    expect(readiness.status).toBe(row.expect);
    if (row.says !== undefined) expect(readiness.message).toContain(row.says);
  });

  it.each([undefined, null])('says NotFound for %j', (value) => {
    expect(readinessOf(value as unknown as KubeObject).status).toBe('NotFound');
  });

  it.each(['garbage', 5, true, [], [{ kind: 'Pod' }]])('says Unknown for %j, which is not an object', (value) => {
    expect(readinessOf(value as unknown as KubeObject)).toEqual({ status: 'Unknown', message: 'not an object' });
  });
});

const unschedulable = (creationTimestamp: unknown): KubeObject => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', creationTimestamp: creationTimestamp as string },
  status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] },
});

describe('readinessOf: the scheduling grace of a Pod', () => {
  const created = Date.parse('2026-11-27T06:00:00Z');

  it('holds an unschedulable Pod InProgress until the grace has passed since its creation, then Failed', () => {
    const pod = unschedulable('2026-11-27T06:00:00Z');
    expect(readinessOf(pod, { now: created }).status).toBe('InProgress');
    expect(readinessOf(pod, { now: created + SCHEDULE_GRACE_MS - 1 }).status).toBe('InProgress');
    expect(readinessOf(pod, { now: created + SCHEDULE_GRACE_MS }).status).toBe('Failed');
  });

  it.each([undefined, 'yesterday', 42])('gives no grace to a Pod whose creationTimestamp is %j', (timestamp) => {
    expect(readinessOf(unschedulable(timestamp), { now: created }).status).toBe('Failed');
  });
});

/** An array that counts how often its items are read. */
function countingArray(items: unknown[]): { array: unknown[]; reads: () => number } {
  let reads = 0;
  const array = new Proxy(items, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads += 1;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { array, reads: () => reads };
}

describe('readinessOf: hostile objects', () => {
  const N = 50_000;

  it('reads each condition a bounded number of times, however many there are', () => {
    const filler = Array.from({ length: N }, (_, i) => ({ type: `Other${i}`, status: 'False' }));
    const { array, reads } = countingArray([...filler, { type: 'Ready', status: 'False', reason: 'Waiting' }]);
    const readiness = readinessOf({ apiVersion: 'db.example.com/v1', kind: 'Database', metadata: { name: 'db' }, status: { conditions: array } });
    expect(readiness).toEqual({ status: 'InProgress', message: 'Database: Ready is False (Waiting)' });
    expect(reads()).toBeLessThanOrEqual(3 * (N + 1));
  });

  it('reads each container status a bounded number of times, and names only the first few', () => {
    const statuses = Array.from({ length: N }, (_, i) => ({ name: `c${i}`, state: { waiting: { reason: 'CrashLoopBackOff' } } }));
    const { array, reads } = countingArray(statuses);
    const readiness = readinessOf({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, status: { phase: 'Running', containerStatuses: array } });
    expect(readiness).toEqual({ status: 'Failed', message: `Pod: containers in CrashLoopBackOff: c0, c1, c2 and ${N - 3} more` });
    expect(reads()).toBeLessThanOrEqual(2 * N);
  });

  it('keeps messages short when the object holds huge strings', () => {
    const huge = 'x'.repeat(1_000_000);
    const objects: KubeObject[] = [
      { apiVersion: 'db.example.com/v1', kind: 'Database', metadata: {}, status: { conditions: [{ type: 'Ready', status: 'False', reason: huge, message: huge }] } },
      { apiVersion: 'v1', kind: 'Pod', metadata: {}, status: { phase: huge } },
      { apiVersion: 'v1', kind: 'Pod', metadata: {}, status: { phase: 'Failed', reason: huge } },
      { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: {}, status: { phase: huge } },
      { apiVersion: 'v1', kind: 'Pod', metadata: {}, status: { phase: 'Running', containerStatuses: [{ name: huge, state: { waiting: { reason: 'CrashLoopBackOff' } } }] } },
      { apiVersion: 'v1', kind: huge, metadata: {} },
      { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: {}, status: { replicas: 1, readyReplicas: 1, currentReplicas: 1, currentRevision: huge, updateRevision: `${huge}y` } },
    ];
    for (const obj of objects) expect(readinessOf(obj).message.length).toBeLessThan(600);
  });
});

describe('conditionOf and isReady', () => {
  const obj: KubeObject = {
    apiVersion: 'v1', kind: 'X', metadata: {},
    status: { conditions: [{ type: 'Ready', status: 'False', reason: 'A' }, { type: 'Ready', status: 'True', reason: 'B' }] },
  };

  it('finds the first condition of a type, its fields as strings', () => {
    expect(conditionOf(obj, 'Ready')).toEqual({ type: 'Ready', status: 'False', reason: 'A', message: '' });
    expect(conditionOf(obj, 'Stalled')).toBeUndefined();
    expect(conditionOf({ ...obj, status: { conditions: 'garbage' } }, 'Ready')).toBeUndefined();
    expect(conditionOf({ ...obj, status: 'garbage' }, 'Ready')).toBeUndefined();
  });

  it('counts only Current as ready', () => {
    expect(READINESS_STATUSES.filter((status) => isReady({ status, message: '' }))).toEqual(['Current']);
  });
});
