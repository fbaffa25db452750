/**
 * Hook servers for tests, all on 127.0.0.1 and port 0: fastify for ordinary hooks, and a raw `node:net`
 * server for wire cases fastify would not produce (no `Content-Length`, never answering, truncated
 * bodies). Everything started through one {@link HookServers} is closed by its `closeAll`.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { createServer, type AddressInfo, type Socket } from 'node:net';

/** The request as a raw server read it: the head (request and header lines) and the body. */
export interface RawRequest {
  head: string;
  body: string;
}

/** Starts servers and remembers them so a test's `afterEach` can close them all. */
export interface HookServers {
  /** A fastify app set up by `routes`; resolves to its base URL (`http://127.0.0.1:<port>`). */
  fastify(routes: (app: FastifyInstance) => void): Promise<string>;
  /** A raw TCP server calling `onConnection` per socket; resolves to its base URL. */
  raw(onConnection: (socket: Socket) => void): Promise<string>;
  /** Destroys every open socket and closes every server. */
  closeAll(): Promise<void>;
}

export function hookServers(): HookServers {
  const closers: (() => Promise<void>)[] = [];
  return {
    fastify: async (routes) => {
      const app = Fastify({ forceCloseConnections: true });
      routes(app);
      closers.push(() => app.close());
      await app.listen({ host: '127.0.0.1', port: 0 });
      return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    },
    raw: async (onConnection) => {
      const sockets = new Set<Socket>();
      const server = createServer((socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        onConnection(socket);
      });
      closers.push(() => new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    closeAll: async () => {
      await Promise.all(closers.splice(0).map((close) => close()));
    },
  };
}

/** Reads one request with a `Content-Length` body from a raw socket. */
export function readRequest(socket: Socket): Promise<RawRequest> {
  return new Promise((resolve, reject) => {
    let data = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      data = Buffer.concat([data, chunk]);
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = data.subarray(0, end).toString('latin1');
      const length = Number(/^content-length:\s*(\d+)$/im.exec(head)?.[1] ?? 0);
      if (data.length < end + 4 + length) return;
      socket.off('data', onData);
      resolve({ head, body: data.subarray(end + 4, end + 4 + length).toString('utf8') });
    };
    socket.on('data', onData);
    socket.on('error', reject);
  });
}

/** A port nothing listens on: bound once, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
