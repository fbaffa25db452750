/**
 * The event recorder over a recording client: an event's message is cut to what Kubernetes shows of an
 * event (1 KiB), however long the message it is given, before it is remembered or written.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/object.ts';
import { MAX_EVENT_MESSAGE_CHARS } from './event-correlator.ts';
import { createEventRecorder } from './event-recorder.ts';
import type { RestClient } from './rest-client.ts';

const parent: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: 'default', uid: 'u1' } };

function recording() {
  const bodies: { message?: string }[] = [];
  const client = {
    request: (req: { body?: unknown }) => {
      bodies.push(req.body as { message?: string });
      return Promise.resolve({ metadata: { name: `event-${bodies.length}` } });
    },
  } as unknown as RestClient;
  const recorder = createEventRecorder({ client, component: 'loom', now: () => 0, logger: pino({ level: 'silent' }) });
  return { recorder, bodies };
}

describe('event recorder: message size', () => {
  it('writes a huge message cut to the limit, saying how much was cut', async () => {
    const { recorder, bodies } = recording();
    recorder.record(parent, { type: 'Warning', reason: 'SyncError', message: `Sync error: ${'x'.repeat(1_000_000)}` });
    await expect.poll(() => bodies.length).toBe(1);
    expect(bodies[0]!.message!.length).toBeLessThanOrEqual(MAX_EVENT_MESSAGE_CHARS);
    expect(bodies[0]!.message).toMatch(/^Sync error: x+… \(\d+ more characters\)$/);
    expect(MAX_EVENT_MESSAGE_CHARS).toBe(1_024);
  });

  it('writes a short message as it is', async () => {
    const { recorder, bodies } = recording();
    recorder.record(parent, { type: 'Warning', reason: 'SyncError', message: 'Sync error: boom' });
    await expect.poll(() => bodies.length).toBe(1);
    expect(bodies[0]!.message).toBe('Sync error: boom');
  });
});
