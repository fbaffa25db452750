import { describe, expect, it } from 'vitest';
import { createCircuitBreaker, type CallVerdict, type CircuitPolicy, type CircuitTransition } from './circuit-breaker.ts';

const POLICY: CircuitPolicy = { failures: 3, openMs: 1_000, maxOpenMs: 3_000 };

function breaker(policy: CircuitPolicy = POLICY) {
  const time = { now: 10_000 };
  const transitions: CircuitTransition[] = [];
  const b = createCircuitBreaker({ policy, clock: { now: () => time.now }, onTransition: (t) => transitions.push(t) });
  /** One whole call with `verdict`; whether it was let through. */
  const call = (verdict: CallVerdict): boolean => {
    const admission = b.admit();
    if (admission.admitted) b.settle(admission, verdict);
    return admission.admitted;
  };
  return { b, time, transitions, call };
}

describe('circuit breaker', () => {
  it('stays closed below the threshold, and an answer resets the count', () => {
    const { b, call } = breaker();
    expect([call('down'), call('down'), call('up'), call('down'), call('down')]).toEqual([true, true, true, true, true]);
    expect(b.state()).toBe('closed');
  });

  it('opens after N failures in a row and refuses calls until the period has passed, saying until when', () => {
    const { b, time, call, transitions } = breaker();
    call('down');
    call('down');
    call('down');
    expect(b.state()).toBe('open');
    expect(transitions).toEqual([{ from: 'closed', to: 'open', failures: 3, retryAt: 11_000 }]);
    time.now = 10_999;
    expect(b.admit()).toEqual({ admitted: false, failures: 3, retryAt: 11_000, probing: false });
  });

  it('lets one probe through after the period; the others fail fast while it is in flight', () => {
    const { b, time, call } = breaker();
    for (let i = 0; i < 3; i++) call('down');
    time.now = 11_000;
    const probe = b.admit();
    expect(probe).toEqual({ admitted: true, probe: true });
    expect(b.state()).toBe('half-open');
    expect(b.admit()).toMatchObject({ admitted: false, probing: true });
    expect(b.admit()).toMatchObject({ admitted: false, probing: true });
  });

  it('closes when the probe finds the endpoint up, and then counts from zero', () => {
    const { b, time, call, transitions } = breaker();
    for (let i = 0; i < 3; i++) call('down');
    time.now = 11_000;
    expect(call('up')).toBe(true);
    expect(b.state()).toBe('closed');
    expect(transitions.map((t) => t.to)).toEqual(['open', 'half-open', 'closed']);
    call('down');
    call('down');
    expect(b.state()).toBe('closed');
  });

  it('opens again for twice as long, up to the maximum, when probes fail', () => {
    const { time, call, transitions } = breaker();
    for (let i = 0; i < 3; i++) call('down');
    const retries: number[] = [];
    for (let i = 0; i < 3; i++) {
      time.now = transitions.at(-1)!.retryAt!;
      expect(call('down')).toBe(true);
      retries.push(transitions.at(-1)!.retryAt! - time.now);
    }
    expect(retries).toEqual([2_000, 3_000, 3_000]);
  });

  it('opens again for the same period, neither shorter nor longer, when the probe told nothing (aborted, never sent)', () => {
    const { b, time, call, transitions } = breaker();
    for (let i = 0; i < 3; i++) call('down');
    time.now = 11_000;
    expect(call('unknown')).toBe(true);
    expect(transitions.at(-1)).toEqual({ from: 'half-open', to: 'open', failures: 3, retryAt: 12_000 });
    expect(b.admit()).toMatchObject({ admitted: false, retryAt: 12_000, probing: false });
    time.now = 12_000;
    expect(b.admit()).toEqual({ admitted: true, probe: true });
  });

  it('is not moved by calls let through before it opened that end later', () => {
    const { b, time } = breaker();
    const late = [b.admit(), b.admit()];
    for (let i = 0; i < 3; i++) {
      const a = b.admit();
      if (a.admitted) b.settle(a, 'down');
    }
    for (const a of late) if (a.admitted) b.settle(a, 'up');
    expect(b.state()).toBe('open');
    time.now = 10_500;
    expect(b.admit().admitted).toBe(false);
  });

  it('counts an unknown verdict neither way while closed', () => {
    const { b, call } = breaker();
    call('down');
    call('down');
    call('unknown');
    expect(b.state()).toBe('closed');
    call('down');
    expect(b.state()).toBe('open');
  });

  it('never opens with a threshold of 0', () => {
    const { b, call } = breaker({ ...POLICY, failures: 0 });
    for (let i = 0; i < 20; i++) expect(call('down')).toBe(true);
    expect(b.state()).toBe('closed');
  });
});
