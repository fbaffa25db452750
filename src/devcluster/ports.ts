/**
 * Free loopback ports, and the retry that covers the race between choosing a port and binding it.
 */
import { createServer } from 'node:net';

/** Asks the kernel for a free port on 127.0.0.1 and releases it at once. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('the kernel returned no port'));
      });
    });
  });
}

/** Thrown by a start attempt whose process could not bind its port. */
export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
}

/**
 * Runs `attempt` until it does not fail with {@link PortInUseError}: another process may take the port
 * between {@link freeLoopbackPort} and the bind. Each attempt must choose fresh ports.
 */
export async function retryOnPortConflict<T>(attempt: (n: number) => Promise<T>, maxAttempts = 5): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      if (!(err instanceof PortInUseError) || n >= maxAttempts) throw err;
    }
  }
}
