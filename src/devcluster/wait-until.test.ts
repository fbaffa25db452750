import { describe, expect, it } from 'vitest';
import { fakeClock } from './fake-clock.test-support.ts';
import { waitUntil } from './wait-until.ts';

describe('waitUntil', () => {
  it('resolves once the check passes, polling at the interval', async () => {
    const clock = fakeClock();
    let calls = 0;
    await waitUntil(() => Promise.resolve(++calls === 3), { clock, what: 'x', timeoutMs: 1_000, intervalMs: 50 });
    expect(calls).toBe(3);
    expect(clock.elapsed()).toBe(100);
  });

  it('names what it waited for and keeps the last error as the cause when time runs out', async () => {
    const clock = fakeClock();
    const refused = new Error('connect ECONNREFUSED');
    const waiting = waitUntil(() => Promise.reject(refused), { clock, what: 'etcd /health', timeoutMs: 500 });
    await expect(waiting).rejects.toThrow('timed out after 500 ms waiting for etcd /health');
    await expect(waiting).rejects.toHaveProperty('cause', refused);
  });

  it('gives up at once when the watched process is gone, without waiting for the deadline', async () => {
    const clock = fakeClock();
    let checks = 0;
    const waiting = waitUntil(
      () => Promise.resolve(++checks > 100),
      { clock, what: 'kube-apiserver', timeoutMs: 60_000, giveUpIf: () => (checks >= 2 ? 'it exited (code 1)' : undefined) },
    );
    await expect(waiting).rejects.toThrow('gave up waiting for kube-apiserver: it exited (code 1)');
    expect(checks).toBe(2);
  });

  it('stops when its signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('Ctrl-C'));
    const waiting = waitUntil(() => Promise.resolve(false), { clock: fakeClock(), what: 'x', timeoutMs: 1_000, signal: controller.signal });
    await expect(waiting).rejects.toThrow('Ctrl-C');
  });
});
