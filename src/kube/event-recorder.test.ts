/**
 * The event recorder over a client that answers at once: with a budget, a storm's excess is dropped and
 * counted rather than queued, and a quiet kind keeps its turn; an event's message is cut to what
 * Kubernetes shows of an event (1 KiB) before it is remembered or written.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/object.ts';
import { createDroppingThrottle, createFairThrottle, TokenBucket } from '../engine/index.ts';
import { manualClock, type ManualClock } from '../engine/manual-clock.test-support.ts';
import { MAX_EVENT_MESSAGE_CHARS } from './event-correlator.ts';
import { createEventRecorder, type EventDropReason } from './event-recorder.ts';
import type { RestClient, RestRequest } from './rest-client.ts';

/** A client that answers every request at once and remembers it. */
function answeringClient(): RestClient & { requests: RestRequest[] } {
  const requests: RestRequest[] = [];
  return {
    server: 'https://api.test',
    requests,
    request: <T>(req: RestRequest) => {
      requests.push(req);
      return Promise.resolve({ metadata: { name: `event-${requests.length}` } } as T);
    },
    watch: () => { throw new Error('not used'); },
  };
}

const parent = (i: number): KubeObject => ({ apiVersion: 'test.loom.dev/v1', kind: 'Storm', metadata: { name: `p${i}`, namespace: 'ns', uid: `uid-${i}` } });
const controller: KubeObject = { apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name: 'healthy', uid: 'c' } };

/** A recorder whose writes take one slot a second (burst 1), `maxWaiting` places per kind, `maxWaitMs` each. */
function budgeted(clock: ManualClock, limits: { maxWaiting: number; maxWaitMs: number }) {
  const client = answeringClient();
  const dropped: EventDropReason[] = [];
  const throttle = createFairThrottle({ clock, limiter: new TokenBucket({ clock, qps: 1, burst: 1 }) });
  const recorder = createEventRecorder({
    client, component: 'loom', now: () => clock.now(), logger: pino({ level: 'silent' }),
    budget: createDroppingThrottle({ clock, throttle, ...limits }), dropped: (reason) => dropped.push(reason),
  });
  return { client, dropped, recorder };
}

const count = (reasons: EventDropReason[], reason: EventDropReason): number => reasons.filter((r) => r === reason).length;

describe('createEventRecorder with a budget', () => {
  it('drops a storm\'s excess events, counted by why, rather than queueing them', async () => {
    const clock = manualClock();
    const { client, dropped, recorder } = budgeted(clock, { maxWaiting: 20, maxWaitMs: 5_500 });
    for (let i = 0; i < 100; i++) recorder.record(parent(i), { type: 'Warning', reason: 'SyncError', message: 'Sync error: boom' });
    // Beyond the 20 places of the kind: dropped at once, nothing written for them.
    expect(count(dropped, 'queue_full')).toBe(80);
    await clock.advance(60_000);
    // One write a second: the burst and one at each of 1..5 s; the 14 others waited past 5.5 s.
    expect(client.requests).toHaveLength(6);
    expect(count(dropped, 'expired')).toBe(14);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('writes a quiet kind\'s event in its turn during another kind\'s storm', async () => {
    const clock = manualClock();
    const { client, recorder } = budgeted(clock, { maxWaiting: 1_000, maxWaitMs: 600_000 });
    for (let i = 0; i < 500; i++) recorder.record(parent(i), { type: 'Warning', reason: 'SyncError', message: 'Sync error: boom' });
    await clock.advance(10_000);
    recorder.record(controller, { type: 'Normal', reason: 'Started', message: 'Started controller' });
    await clock.advance(2_000);
    const started = client.requests.findIndex((r) => (r.body as { reason?: string }).reason === 'Started');
    // 11 storm events went by the 10th second, the storm's next one and then the quiet one.
    expect(started).toBeGreaterThan(0);
    expect(started).toBeLessThanOrEqual(13);
  });

  it('counts an event the per-object spam filter refuses as dropped', () => {
    const clock = manualClock();
    const dropped: EventDropReason[] = [];
    const client = answeringClient();
    const recorder = createEventRecorder({
      client, component: 'loom', now: () => clock.now(), logger: pino({ level: 'silent' }),
      allow: () => false, dropped: (reason) => dropped.push(reason),
    });
    recorder.record(parent(1), { type: 'Warning', reason: 'SyncError', message: 'x' });
    expect(dropped).toEqual(['filtered']);
    expect(client.requests).toEqual([]);
  });
});

const configMap: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: 'default', uid: 'u1' } };

/** A recorder with no budget over an answering client, and the messages it wrote. */
function recording() {
  const client = answeringClient();
  const recorder = createEventRecorder({ client, component: 'loom', now: () => 0, logger: pino({ level: 'silent' }) });
  return { recorder, messages: () => client.requests.map((r) => (r.body as { message?: string }).message) };
}

describe('event recorder: message size', () => {
  it('writes a huge message cut to the limit, saying how much was cut', async () => {
    const { recorder, messages } = recording();
    recorder.record(configMap, { type: 'Warning', reason: 'SyncError', message: `Sync error: ${'x'.repeat(1_000_000)}` });
    await expect.poll(() => messages().length).toBe(1);
    expect(messages()[0]!.length).toBeLessThanOrEqual(MAX_EVENT_MESSAGE_CHARS);
    expect(messages()[0]).toMatch(/^Sync error: x+… \(\d+ more characters\)$/);
    expect(MAX_EVENT_MESSAGE_CHARS).toBe(1_024);
  });

  it('writes a short message as it is', async () => {
    const { recorder, messages } = recording();
    recorder.record(configMap, { type: 'Warning', reason: 'SyncError', message: 'Sync error: boom' });
    await expect.poll(() => messages().length).toBe(1);
    expect(messages()[0]).toBe('Sync error: boom');
  });
});
