import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freeLoopbackPort, PortInUseError, retryOnPortConflict } from './ports.ts';

describe('freeLoopbackPort', () => {
  it('returns a port that can be bound on 127.0.0.1', async () => {
    const port = await freeLoopbackPort();
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => server.close(resolve));
    expect(port).toBeGreaterThan(0);
  });
});

describe('retryOnPortConflict', () => {
  it('retries an attempt that lost its port and returns the first success', async () => {
    const attempts: number[] = [];
    const result = await retryOnPortConflict((n) => {
      attempts.push(n);
      return n < 3 ? Promise.reject(new PortInUseError('taken')) : Promise.resolve(`ok on ${n}`);
    });
    expect(result).toBe('ok on 3');
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('does not retry other failures', async () => {
    let attempts = 0;
    const failing = retryOnPortConflict(() => {
      attempts++;
      return Promise.reject(new Error('bad flag'));
    });
    await expect(failing).rejects.toThrow('bad flag');
    expect(attempts).toBe(1);
  });

  it('gives up after the last attempt with the port error', async () => {
    let attempts = 0;
    const failing = retryOnPortConflict(() => {
      attempts++;
      return Promise.reject(new PortInUseError('still taken'));
    }, 4);
    await expect(failing).rejects.toBeInstanceOf(PortInUseError);
    expect(attempts).toBe(4);
  });
});
